"""Held-out check of explain's unwrapping: real messages of the wrapped families that no
test uses and that were collected after the engine changed (never tuned on).

Real messages of the wrapped families (dynamo's quoted errors, logger and UI
prefixes, mps, cuDNN and fake-tensor wordings) from public issues that no test uses,
collected after the engine learned them and scored once; the catalogue was not changed
for them. Prints each miss, the accuracy and the crashes (must be 0). Its run:
benchmarks/explain_heldout.md.

    python benchmarks/explain_heldout_wrapped.py
"""

from __future__ import annotations

import sys

from ice_lab.explainer import Diagnosis, explain

DEV = "Expected all tensors to be on the same device, but found at least two devices, "
MPS_OOM = ("MPS backend out of memory (MPS allocated: {a}, other allocations: {b}, max "
           "allowed: {c}). Tried to allocate {d} on private pool. Use "
           "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory allocations "
           "(may cause system failure).")
CASES: list[tuple[str, str, str]] = [
    ("device_mismatch", "https://github.com/Comfy-Org/ComfyUI/issues/2284",
     "Error occurred when executing KSampler:\n\n" + DEV + "cpu and cuda:0! (when checking "
     "argument for argument mat1 in method wrapper_CUDA_addmm)"),
    ("device_mismatch", "https://github.com/Comfy-Org/ComfyUI/issues/3881",
     "```powershell\nError occurred when executing KSampler:\n\n" + DEV + "cuda:0 and cpu! "
     "(when checking argument for argument tensors in method wrapper_CUDA_cat)\n\n"
     'File "D:\\ComfyUIMax\\ComfyUI\\execution.py", line 151, in recursive_execute\n'
     "output_data, output_ui = get_output_data(obj, input_data_all)"),
    ("device_mismatch", "https://github.com/Comfy-Org/ComfyUI/issues/8417",
     "2025-06-04 21:18:55,487 - WanVideoKsampler - ERROR - Error during processing: " + DEV
     + "cpu and cuda:0! (when checking argument for argument mat1 in method "
     "wrapper_CUDA_addmm)\n!!! Exception during processing !!! " + DEV + "cpu and cuda:0! "
     "(when checking argument for argument mat1 in method wrapper_CUDA_addmm)\n"
     "Traceback (most recent call last):\n"
     '  File "E:\\ComfyUI_windows_portable\\ComfyUI\\execution.py", line 349, in execute'),
    ("device_mismatch", "https://github.com/Kosinkadink/ComfyUI-AnimateDiff-Evolved/issues/334",
     "Issue with KSampler. (RuntimeError: " + DEV + "cuda:0 and cpu!)"),
    ("device_mismatch", "https://github.com/huchenlei/ComfyUI-layerdiffuse/issues/83",
     "Error occurred when executing KSampler Adv. (Efficient):\n\n" + DEV + "cuda:0 and cpu!\n"
     '\n  File "/media/comfyui/ComfyUI/execution.py", line 151, in recursive_execute'),
    ("device_mismatch", "https://github.com/open-mmlab/mmsegmentation/issues/2909",
     "RuntimeError: Placeholder storage has not been allocated on MPS device!"),
    ("device_mismatch", "https://github.com/yangjianxin1/Firefly-LLaMA2-Chinese/issues/8",
     "RuntimeError: Placeholder storage has not been allocated on MPS device!\n"
     "macos 执行single_chat.py出现错误"),
    ("device_mismatch", "https://github.com/lenML/Speech-AI-Forge/issues/119",
     "[ISSUE] 在M芯片的MacBook上报错：RuntimeError: Placeholder storage has not been "
     "allocated on MPS device!"),
    ("device_mismatch", "https://github.com/Mikubill/sd-webui-controlnet/issues/1128",
     "[Bug]: RuntimeError: Placeholder storage has not been allocated on MPS device!"),
    ("dtype_mismatch", "https://github.com/pytorch/pytorch/issues/77781",
     'Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n'
     "TypeError: Trying to convert Double to the MPS backend but there is no mapping for it."),
    ("dtype_mismatch", "https://github.com/orchidas/DiffGFDN/issues/3",
     "``TypeError: Trying to convert ComplexDouble to the MPS backend but it does not have "
     "support for that dtype.``"),
    ("dtype_mismatch", "https://github.com/Comfy-Org/ComfyUI/issues/9263",
     "Trying to convert Float8_e4m3fn to the MPS backend but it does not have support for "
     "that dtype."),
    ("dtype_mismatch", "https://github.com/tyfeld/MMaDA-Parallel/issues/3",
     "```\nTypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework "
     "doesn't support float64. Please use float32 instead.\n```"),
    ("dtype_mismatch", "https://github.com/pytorch/torchdynamo/issues/761",
     "[BigBird][aot_nvfuser] Got RuntimeError: expected scalar type Half but found Float"),
    ("dtype_mismatch", "https://github.com/pytorch/TensorRT/issues/2419",
     "RuntimeError: expected scalar type Float but found Half\n[2023-10-28 09:38:42,357] "
     "torch._dynamo.output_graph: [INFO] Step 2: done compiler function "
     "torch_tensorrt_backend\nTraceback (most recent call last):\n"
     '  File "resnet_tensorrt_jit.py", line 14, in <module>'),
    ("dtype_mismatch", "https://github.com/GVCLab/PersonaLive/issues/42",
     "RuntimeError: Expected tensor for argument #1 'input' to have the same type as tensor "
     "for argument #2 'weight'; but type torch.cuda.FloatTensor does not equal "
     "torch.cuda.HalfTensor (while checking arg"),
    ("dtype_mismatch", "https://github.com/baaivision/See3D/issues/11",
     "Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be "
     "the same"),
    ("dtype_mismatch", "https://github.com/MaraScott/ComfyUI_MaraScott_Nodes/issues/125",
     "Input type (float) and bias type (struct c10::Half) should be the same"),
    ("dtype_mismatch", "https://github.com/MoonHugo/ComfyUI-BiRefNet-Hugo/issues/28",
     "Input type (float) and bias type (struct c10::Half) should be the same 这个报错是为什么"),
    ("dtype_mismatch", "https://github.com/kohya-ss/ControlNet-LLLite-ComfyUI/issues/10",
     "Error occurred when executing KSampler: Input type (float) and bias type (struct "
     "c10::Half) should be the same"),
    ("dtype_mismatch", "https://github.com/datawhalechina/self-llm/issues/29",
     "```\nRuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'\n```"),
    ("dtype_mismatch", "https://github.com/SCIR-HI/Med-ChatGLM/issues/14",
     "```\nRuntimeError: \"LayerNormKernelImpl\" not implemented for 'Half'\n```\n"
     "这个是pytorch报的错，为什么会报这个错啊？"),
    ("dtype_mismatch", "https://github.com/facebookresearch/flores/issues/30",
     "RuntimeError: \"LayerNormKernelImpl\" not implemented for 'Half'\n when doing on cpu"),
    ("dtype_mismatch", "https://github.com/datvuthanh/HybridNets/issues/28",
     "RuntimeError: \"slow_conv2d_cpu\" not implemented for 'Half'"),
    ("dtype_mismatch", "https://github.com/weiyifan1023/Neeko/issues/6",
     "RuntimeError: mat1 and mat2 must have the same dtype, but got Float and Half"),
    ("dtype_mismatch", "https://github.com/apple/ml-stable-diffusion/issues/285",
     "Convert model: check-output-correctness met RuntimeError: mat1 and mat2 must have the "
     "same dtype"),
    ("nonfinite", "https://github.com/JinmiaoChenLab/scTM/issues/10",
     "ValueError: Expected parameter loc (Parameter of shape (2000,)) of distribution "
     "Normal(loc: torch.Size([2000]), scale: torch.Size([2000])) to satisfy the constraint "
     "Real(), but found invalid values:\nParameter containing:\ntensor([-1.9658, -1.5199, "
     "-0.6953,  ..., -2.4726, -2.246"),
    ("nonfinite", "https://github.com/scverse/scvi-tools/issues/2830",
     "Expected value argument (Parameter of shape (7150,)) to be within the support (Real()) "
     "of the distribution Normal(loc: torch.Size([7150]), scale: torch.Size([7150])), but "
     "found invalid values: Paramet"),
    ("nonfinite", "https://github.com/pytorch/pytorch/issues/18133",
     'File "python3.9/site-packages/torch/distributions/distribution.py", line 53, in '
     '__init__\nraise ValueError("The parameter {} has invalid values".format(param))\n'
     "ValueError: The parameter probs has invalid values"),
    ("out_of_memory", "https://github.com/Comfy-Org/ComfyUI/issues/2489",
     "RuntimeError: " + MPS_OOM.format(a="5.56 GB", b="1.10 GB", c="6.80 GB", d="768.00 MB")),
    ("out_of_memory", "https://github.com/lllyasviel/Fooocus/issues/1139",
     "**Full Console Log**\nRuntimeError: " + MPS_OOM.format(a="8.89 GB", b="172.98 MB",
                                                             c="9.07 GB", d="6.25 MB")
     + "\nTotal time: 129.38 seconds"),
    ("out_of_memory", "https://github.com/Comfy-Org/ComfyUI/issues/4880",
     "torch.OutOfMemoryError: Allocation on device \n\n2024-09-11 11:23:11,827 - root - "
     "ERROR - Got an OOM, unloading all loaded models."),
    ("shape_mismatch", "https://github.com/ofnote/gestop/issues/32",
     "   return F.linear(input, self.weight, self.bias)\nRuntimeError: mat1 and mat2 shapes "
     "cannot be multiplied (1x49 and 36x128)"),
    ("shape_mismatch", "https://github.com/Comfy-Org/ComfyUI/issues/8813",
     "```powershell\nRuntimeError: mat1 and mat2 shapes cannot be multiplied (2624x64 and "
     "128x3072)\n```"),
]


def main() -> int:
    right = crashes = 0
    for expected, source, message in CASES:
        try:
            d = explain(message)
            got = d.kind if isinstance(d, Diagnosis) else "CRASH"
        except Exception as failure:  # noqa: BLE001 - counted, must stay 0
            crashes += 1
            got = f"CRASH {type(failure).__name__}"
        right += got == expected
        if got != expected:
            print(f"miss: {source}: expected {expected}, explain says {got}")
    print(f"{right}/{len(CASES)} correct kinds ({100 * right / len(CASES):.0f}%), "
          f"explain crashes: {crashes}")
    return 0 if crashes == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
