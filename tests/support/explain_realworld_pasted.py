"""A fresh held-out round of real messages as people paste them, collected and
labelled before explain was changed for it.

Each message comes from a public issue, pull request or page that no other set in this
repository uses (checked against tests/support/explain_realworld*.py and benchmarks/). It is copied
as the person pasted it: a Rich box traceback, an issue title that paraphrases, misspells or
cuts the message, a reply quoted with ``>`` and wrapped mid-word by a terminal, a Chinese
post with full-width punctuation or a machine translation, a pytest ``E`` block, an old
TH-era wording, a worker's re-raised traceback. The label is the root cause given in the
thread (or, where the thread only asks, the cause its own traceback shows), never what the
last line's words alone suggest: "result type Float can't be cast to ... Long" raised
inside a BCE loss is the target's dtype; the same words from ``long_tensor.add_(float)``
are a dtype clash.

63 messages from 63 threads and pages (2017-2026), 16 kinds. Its first run, before any
change to ``ice_lab/explain`` (torch 2.14.1, CPU): **49/63 (78%)**, 0 crashes. The misses:
TH-era "invalid argument 0: Sizes of tensors must match" (4) and a misspelled "stack expect",
paraphrased titles (inference tensors, lambdas on Windows, "Specify retain_graph=True"), a
cut channel message, a BCE loss named only in prose, "c10--BFloat16", an old "unexpected
key ... in state_dict", a Chinese title and a machine-translated in-place error.
"""

from __future__ import annotations

from explain_realworld import RealMessage as R

MESSAGES: list[R] = [
    # ---- inference mode: the sentence, retyped titles and paraphrases
    R("no_grad_fn", "https://github.com/unslothai/unsloth/issues/2434",
      r"""[Bug] GRPO Qwen3 Failed: Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal tensor and use it in autograd."""),
    R("no_grad_fn", "https://github.com/facebookresearch/dinov2/issues/472",
      r"""Official notebook model cannot do training,foward then raise RuntimeError: Inference tensors cannot be saved for backward."""),
    R("no_grad_fn", "https://github.com/roboflow/rf-detr/issues/461",
      r"""PyTorch Error: Inference Tensor Saved for Backward"""),
    R("no_grad_fn", "https://github.com/qualcomm/aimet/issues/2026",
      r"""RuntimeError: Inference tensors cannot be saved for backward when doing QAT"""),
    R("no_grad_fn", "https://github.com/state-spaces/s4/issues/169",
      r"""RuntimeError: Inference tensors cannot be saved for backward (with CUDA kernels installed)"""),
    # ---- DataLoader workers killed: a Rich box, shortened pids, Chinese titles
    R("dataloader_worker_crash", "https://github.com/mittagessen/kraken/issues/266",
      r"""RuntimeError: DataLoader worker (pid 22048) is killed by signal: Killed."""),
    R("dataloader_worker_crash", "https://github.com/FoNDUE-HTR/Documentation/issues/13",
      """\u2502   1165 \u2502   \u2502   \u2502   \u2502   \u2502   return data                                                           \u2502
\u2502   1166 \u2502   \u2502   \u2502   else:                                                                         \u2502
\u2502                                                                                                  \u2502
\u2502 /home/users/g/gabays/kraken-env/lib/python3.8/site-packages/torch/utils/data/dataloader.py:1024  \u2502
\u2502 in _try_get_data                                                                                 \u2502
\u2502                                                                                                  \u2502
\u2502   1021 \u2502   \u2502   \u2502   \u2502   \u2502   self._mark_worker_as_unavailable(worker_id)                           \u2502
\u2502   1022 \u2502   \u2502   \u2502   if len(failed_workers) > 0:                                                   \u2502
\u2502   1023 \u2502   \u2502   \u2502   \u2502   pids_str = ', '.join(str(w.pid) for w in failed_workers)                  \u2502
\u2502 \u2771 1024 \u2502   \u2502   \u2502   \u2502   raise RuntimeError('DataLoader worker (pid(s) {}) exited unexpectedly'.f  \u2502
\u2502   1025 \u2502   \u2502   \u2502   if isinstance(e, queue.Empty):                                                \u2502
\u2502   1026 \u2502   \u2502   \u2502   \u2502   return (False, None)                                                      \u2502
\u2502   1027 \u2502   \u2502   \u2502   import tempfile                                                               \u2502
\u2570\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u256f
RuntimeError: DataLoader worker (pid 164244) is killed by signal: Killed."""),
    R("dataloader_worker_crash", "https://github.com/MhLiao/DB/issues/94",
      r"""训练时 dataLoader killed
请问训练时为什么会莫名其妙被killed 内存是够的
RuntimeError: DataLoader worker (pid 25902) is killed by signal: Segmentation fault"""),
    R("dataloader_worker_crash", "https://github.com/datawhalechina/torch-rechub/issues/62",
      r"""PLE运行 RuntimeError: DataLoader worker (pid 1022) is killed by signal: Killed."""),
    R("dataloader_worker_crash", "https://github.com/hezhangsprinter/DCPDN/issues/12",
      r"""Traceback (most recent call last):
  File "train.py", line 210, in <module>
    val_target_cpu, val_input_cpu = val_target_cpu.float().cuda(), val_input_cpu.float().cuda()
  File "/home/littlemonster/anaconda3/envs/pic/lib/python2.7/site-packages/torch/_utils.py", line 69, in _cuda
    return new_type(self.size()).copy_(self, async)
  File "/home/littlemonster/anaconda3/envs/pic/lib/python2.7/site-packages/torch/utils/data/dataloader.py", line 175, in handler
    _error_if_any_worker_fails()
RuntimeError: DataLoader worker (pid 19597) is killed by signal: Killed."""),
    R("dataloader_worker_crash", "https://github.com/pytorch/pytorch/issues/4507",
      r"""RuntimeError: DataLoader worker (pid 23616) is killed by signal: Terminated."""),
    R("dataloader_worker_crash", "https://github.com/azavea/raster-vision/issues/1071",
      r"""RuntimeError: DataLoader worker (pid 4024) is killed by signal: Killed."""),
    # ---- pickling a local object for spawn workers: retyped, quoted and wrapped
    R("dataloader_pickling", "https://github.com/openai/CLIP/pull/151",
      r"""This prevents the following error on Windows (when using a multi-process `DataLoader`, for example):
```
AttributeError: Can't pickle local object '_transform.<locals>.<lambda>'
```"""),
    R("dataloader_pickling", "https://github.com/HazyResearch/cartridges/issues/20",
      r"""DataLoader(collate_fn=lambda ..., num_workers=1) breaks on Windows (multiprocessing spawn can't pickle a local lambda)"""),
    R("dataloader_pickling", "https://github.com/xingyizhou/CenterNet/issues/649",
      r"""When setting num_workers > 0 in train_data_loader, it goes to error like "Can't pickle local object 'get_dataset.<locals>.Dataset".  Setting num_workers = 0 can skip this error"""),
    R("dataloader_pickling", "https://github.com/qfgaohao/pytorch-ssd/issues/19",
      r""">     w.start()
>   File "D:\SoftWare\Anaconda3\envs\deeplearning\lib\multiprocessing\process.py",                 line 105, in start
>     self._popen = self._Popen(self)
>   File "D:\SoftWare\Anaconda3\envs\deeplearning\lib\multiprocessing\popen_spawn_                win32.py", line 65, in __init__
>     reduction.dump(process_obj, to_child)
>   File "D:\SoftWare\Anaconda3\envs\deeplearning\lib\multiprocessing\reduction.py                ", line 60, in dump
>     ForkingPickler(file, protocol).dump(obj)
> AttributeError: Can't pickle local object 'TrainAugmentation.__init__.<locals>.<                lambda>'"""),
    R("dataloader_pickling", "https://github.com/qfgaohao/pytorch-ssd/issues/55",
      r"""Report an error：“ Can't pickle local object 'TrainAugmentation.__init__.<locals>.<lambda>' ”"""),
    R("dataloader_pickling", "https://github.com/snap-stanford/pretrain-gnns/issues/75",
      r"""AttributeError: Can't pickle local object 'DataLoaderMasking.__init__.<locals>.<lambda>'"""),
    R("dataloader_pickling", "https://github.com/belskikh/kekas/issues/26",
      r"""pytorch dataloader with datakek can't pickle transforms lamda fucntion on windows"""),
    # ---- batching samples of different sizes: today's and the TH-era wording
    R("shape_mismatch", "https://github.com/bghira/SimpleTuner/issues/59",
      r"""  File "/root/SimpleTuner/train_sdxl.py", line 559, in collate_fn
    pixel_values = torch.stack(latents)
RuntimeError: stack expects each tensor to be equal size, but got [4, 128, 170] at entry 0 and [4, 96, 128] at entry 2"""),
    R("shape_mismatch", "https://github.com/seungwonpark/melgan/issues/11",
      r"""	return torch.stack(batch, 0, out=out)
RuntimeError: invalid argument 0: Sizes of tensors must match except in dimension 0. Got 16000 and 15986 in dimension 2 at /pytorch/aten/src/TH/generic/THTensor.cpp:689"""),
    R("shape_mismatch", "https://github.com/ssnl/dataset-distillation/issues/59",
      r"""RuntimeError: invalid argument 0: Sizes of tensors must match except in dimension 0. Got 4035 and 4003 in dimension 2 at /opt/conda/conda-bld/pytorch_1544199946412/work/aten/src/TH/generic/THTensorMor"""),
    R("shape_mismatch", "https://github.com/minzwon/sota-music-tagging-models/issues/3",
      r"""Problems training on jamendo - RuntimeError: invalid argument 0: Sizes of tensors must match except in dimension 0"""),
    R("shape_mismatch", "https://github.com/NVlabs/few-shot-vid2vid/issues/36",
      r"""Sizes of Tensors must match except in dimension 0"""),
    R("shape_mismatch", "https://github.com/migperfer/TriAD-ISMIR2023/issues/1",
      r"""RuntimeError: stack expect each tensor to be equal size, but got [80000] at entry 0 and [79872] at entry 2"""),
    R("shape_mismatch", "https://github.com/Suanmd/TR-MISR/issues/7",
      r"""RuntimeError: Caught RuntimeError in DataLoader worker process 0.
Original Traceback (most recent call last):
  File "/home/uzma/.local/lib/python3.6/site-packages/torch/utils/data/_utils/worker.py", line 287, in _worker_loop
    data = fetcher.fetch(index)
  File "/home/uzma/TR-MISR/src/utils.py", line 114, in collateFunction
    padded_lr_batch = torch.stack(lr_batch, dim=0)
RuntimeError: stack expects each tensor to be equal size, but got [24, 32, 32] at entry 0 and [24, 32, 64] at entry 1"""),
    R("shape_mismatch", "https://github.com/pytorch/pytorch/issues/116558",
      r"""Run wy0zpbq7 errored: RuntimeError('Caught RuntimeError in DataLoader worker process 0.\nOriginal Traceback (most recent call last):\n  File "/users/shivanim/anaconda3/envs/tqn2/lib/python3.11/site-packages/torch/utils/data/_utils/worker.py", line 308, in _worker_loop\n    data = fetcher.fetch(index)\n           ^^^^^^^^^^^^^^^^^^^^\n  File "/work/shivanim/vqvae/train.py", line 67, in collate_tensor_fn\n    seq=torch.stack(seq,dim=0)\n        ^^^^^^^^^^^^^^^^^^^^^^\nRuntimeError: stack expects each tensor to be equal size, but got [3, 1, 224, 224] at entry 0 and [3, 1, 144, 192] at entry 6\n')"""),
    R("shape_mismatch", "https://github.com/NVIDIA-NeMo/Speech/issues/5334",
      r"""--> 179 sig = torch.cat((start, sig, end))
    180 sig_len += slice_length

RuntimeError: Tensors must have same number of dimensions: got 1 and 2"""),
    R("broadcast_mismatch", "https://github.com/descriptinc/descript-audio-codec/issues/70",
      r"""RuntimeError: Caught RuntimeError in DataLoader worker process 0.
Original RuntimeError: The size of tensor a (5) must match the size of tensor b (6) at non-singleton dimension 1"""),
    # ---- channels
    R("conv_channels", "https://github.com/jacobgil/pytorch-grad-cam/issues/141",
      r"""Hello, when I cloned the repo and tested on the grayscale images, I received error saying "RuntimeError: Given groups=1, weight of size [64, 3, 7, 7], expected input[1, 1, 100, 100] to have 3 channels, but got 1 channels instead\""""),
    R("conv_channels", "https://github.com/sunsmarterjie/yolov12/issues/161",
      r"""Given groups=64, weight of size [64, 1, 5, 5], expected input[1, 1, 84, 128] to have 64 channels, but got 1 channels instead"""),
    R("conv_channels", "https://github.com/lucidrains/vit-pytorch/issues/54",
      r"""`RuntimeError: Given groups=1, weight of size [64, 3, 7, 7], expected input[64, 1, 224, 224] to have 3 channels, but got 1 channels instead`"""),
    R("conv_channels", "https://github.com/taesungp/contrastive-unpaired-translation/issues/158",
      r"""RuntimeError: Given groups=1, weight of size [64, 1, 7, 7], expected input[0, 3, 406, 406] to have 1 channels, but got 3 channels instead"""),
    R("conv_channels", "https://github.com/lucidrains/denoising-diffusion-pytorch/issues/55",
      r"""grayscale RuntimeError: `expected input[2, 3, 64, 64] to have 1 channels, but got 3 channels instead`"""),
    # ---- the target's dtype: the cause is in the traceback (a BCE loss)
    R("target_dtype", "https://github.com/ando-khachatryan/HiDDeN/issues/28",
      r"""  File "D:\AP\Anaconda\ANaconda\lib\site-packages\torch\nn\modules\loss.py", line 713, in forward
    return F.binary_cross_entropy_with_logits(input, target,
  File "D:\AP\Anaconda\ANaconda\lib\site-packages\torch\nn\functional.py", line 3132, in binary_cross_entropy_with_logits
    return torch.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction_enum)
RuntimeError: result type Float can't be cast to the desired output type Long"""),
    R("target_dtype", "https://github.com/NVIDIA/apex/issues/1039",
      r"""Tried with PyTorch 1.8, following exception originate from BCE loss function in examples/DCGAN/main_amp.py

```
RuntimeError: result type Float can't be cast to the desired output type Long
```"""),
    R("target_dtype", "https://github.com/AKASHKADEL/dcgan-mnist/pull/2",
      r"""  File "/usr/local/lib/python3.6/dist-packages/torch/nn/functional.py", line 2526, in binary_cross_entropy
    input, target, weight, reduction_enum)
RuntimeError: Found dtype Long but expected Float"""),
    R("target_dtype", "https://github.com/yangji9181/HNE/issues/13",
      r"""    predict_loss = F.binary_cross_entropy(torch.sigmoid(embed[matched_index]), matched_labels)
  File "/home/lqd/software/anaconda3/envs/HNE/lib/python3.7/site-packages/torch/nn/functional.py", line 2526, in binary_cross_entropy
    input, target, weight, reduction_enum)
RuntimeError: Found dtype Long but expected Float"""),
    # ---- the same words from an in-place op on an integer tensor: a dtype clash
    R("dtype_mismatch", "https://github.com/AI-secure/DBA/issues/1",
      r"""  File "/DBA/helper.py", line 256, in average_shrink_models
    data.add_(update_per_layer)
RuntimeError: result type Float can't be cast to the desired output type Long"""),
    R("dtype_mismatch", "https://github.com/vicFigure/EAutoDet/issues/5",
      r"""    indices.append((b, a, gj.clamp_(0, gain[3] - 1), gi.clamp_(0, gain[2] - 1)))  # image, anchor, grid indices
RuntimeError: result type Float can't be cast to the desired output type long int"""),
    R("dtype_mismatch", "https://taourl.com/read-2626091.html",
      r"""RuntimeError- Input type (c10--BFloat16) and bias type (c10--Half) should be the same"""),
    # ---- checkpoints
    R("state_dict_mismatch", "https://github.com/hou-yz/MVDet/issues/7",
      r"""Missing key(s) in state_dict: "map_classifier.0.weight", "map_classifier.0.bias", "map_classifier.2.weight", "map_classifier.2.bias", "map_classifier.4.weight". 

Unexpected key(s) in state_dict: "world_classifier.0.weight", "world_classifier.0.bias", "world_classifier.2.weight", "world_classifier.2.bias", "world_classifier.4.weight"."""),
    R("state_dict_mismatch", "https://github.com/aks2203/deep-thinking/issues/5",
      r"""actual error: RuntimeError: Error(s) in loading state_dict for DTNet:
	Missing key(s) in state_dict: "projection.0.weight", "recur_block.0.0.conv1.weight", "head.0.weight". 
	Unexpected key(s) in state_dict: "module.projection.0.weight", "module.recur_block.0.0.conv1.weight", "module.head.0.weight"."""),
    R("state_dict_mismatch", "https://github.com/carpedm20/DiscoGAN-pytorch/issues/6",
      r"""'unexpected key "module.layer_module.0.weight" in state_dict'"""),
    R("state_dict_mismatch", "https://github.com/12wang3/rrl/issues/17",
      r"""-packages/torch/nn/modules/module.py", line 2152, in load_state_dict
    raise RuntimeError('Error(s) in loading state_dict for {}:\n\t{}'.format(
RuntimeError: Error(s) in loading state_dict for Net:
        Missing key(s) in state_dict: "t", "layer_list.0.cl", "layer_list.1.con_layer.W". 
        Unexpected key(s) in state_dict: "", "ist.0.cl", "ist.1.con_layer.W". """),
    R("unsafe_unpickling", "https://github.com/sktime/pytorch-forecasting/issues/1998",
      r"""E                           	(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.
E                           	(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the following error message.
E                           	WeightsUnpickler error: Unsupported global: GLOBAL pytorch_forecasting.data.encoders.GroupNormalizer was not an allowed global by default. Please use `torch.serialization.add_safe_globals([pytorch_forecasting.data.encoders.GroupNormalizer])` or the `torch.serialization.safe_globals([pytorch_forecasting.data.encoders.GroupNormalizer])` context manager to allowlist this global if you trust this class/function.
E                           
E                           Check the documentation of torch.load to learn more about types accepted by default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.

/Library/Frameworks/Python.framework/Versions/3.11/lib/python3.11/site-packages/torch/serialization.py:1529: UnpicklingError"""),
    R("unsafe_unpickling", "https://github.com/0Xiaohei0/LocalAIVtuber/issues/51",
      r"""serialization.py", line 1470, in load
    raise pickle.UnpicklingError(_get_wo_message(str(e))) from None
_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint.
        (1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.
        (2) Alternatively, to load with `weights_only=True` please check the recommended steps in the following error message.
        WeightsUnpickler error: Unsupported global: GLOBAL utils.HParams was not an allowed global by default. Please use `torch.serialization.add_safe_globals([HParams])` or the `torch.serialization.safe_globals([HParams])` context manager to allowlist this global if you trust this class/function."""),
    R("unsafe_unpickling", "https://github.com/fssorc/ComfyUI_FaceShaper/issues/31",
      r"""`[Impact Pack/Subpack] UnpicklingError during safe load (not 'getattr' related): Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint. 
        (1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.
        (2) Alternatively, to load with `weights_only=True` please check the recommended steps in the following error message.
        WeightsUnpickler error: Unsupported global: GLOBAL torch.fx.graph_module.reduce_graph_module was not an allowed global by default."""),
    R("unsafe_unpickling", "https://github.com/YeongChanLee/ICD2Vec/issues/13",
      r"""UnpicklingError: Weights only load failed"""),
    # ---- class indices out of range
    R("target_out_of_range", "https://github.com/EricFillion/happy-transformer/issues/248",
      r"""return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index) IndexError: 
Target -1 is out of bounds."""),
    R("target_out_of_range", "https://github.com/johschmidt42/PyTorch-Object-Detection-Faster-RCNN-Tutorial/issues/7",
      r"""Training - IndexError: Target 1 is out of bounds."""),
    R("target_out_of_range", "https://github.com/TencentGameMate/gnn_cross_lingual/issues/5",
      r"""IndexError: Target 12 is out of bounds."""),
    # ---- backward twice: three wordings
    R("backward_twice", "https://github.com/davda54/sam/issues/45",
      r"""RuntimeError: Trying to backward through the graph a second time, but the saved intermediate results have already been freed. Specify retain_graph=True when calling backward the first time."""),
    R("backward_twice", "https://github.com/pkmr06/pytorch-smoothgrad/issues/2",
      r"""RuntimeError: Trying to backward through the graph a second time, but the buffers have already been freed"""),
    R("backward_twice", "https://github.com/kuangliu/pytorch-retinanet/issues/38",
      r"""Specify retain_graph=True when calling backward the first time"""),
    # ---- GPU tensor to NumPy
    R("numpy_conversion", "https://github.com/swz30/MPRNet/issues/128",
      r"""有大佬知道cuda:0 device type tensor to numpy怎么解决"""),
    R("numpy_conversion", "https://github.com/xiaxin1998/DHCN/issues/14",
      r"""model.py的第40行“ item_embeddings = np.sum(final, 0) / (self.layers+1)” 报错：
TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.

Process finished with exit code 1"""),
    R("numpy_conversion", "https://github.com/StrangerZhang/SiamFC-PyTorch/issues/41",
      r"""File "/home/xxc/miniconda3/envs/torch18/lib/python3.8/site-packages/torch/tensor.py", line 621, in __array__
    return self.numpy()
TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."""),
    # ---- no CUDA build
    R("cuda_unavailable", "https://github.com/zhysora/UCGAN/issues/2",
      r"""“AssertionError: Torch not compiled with CUDA enabled”，请问这个错误怎么解决啊"""),
    # ---- in-place: the sentence, a cut title, a machine translation
    R("inplace_modified", "https://github.com/anse3832/USR_DA/issues/4",
      r"""经常会出这种问题
one of the variables needed for gradient computation has been modified by an inplace operation"""),
    R("inplace_modified", "https://github.com/ziqi92/Modof/issues/5",
      r"""> 帮助：有没有同学遇到过这个问题？我不知道如何解决它。运行时错误：梯度计算所需的变量之一已被就地操作修改：[torch.cuda.FloatTensor [27， 32]]，这是 ReluBackward0 的输出 0，位于版本 1;预期版本 0 改为。提示：上面的回溯显示了计算梯度失败的操作。有问题的变量后来在那里或任何地方都发生了变化。祝你好运！"""),
    R("inplace_modified", "https://github.com/lyongo/NWPU-MOC/issues/4",
      r"""RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.cuda.FloatTensor [4, 128, 64, 64]], which is output 0 of ReluBackward0, is at version 1; expected version 0 instead. Hint: the backtrace further above shows the operation that failed to compute its gradient. The variable in question was changed in there or anywhere later. Good luck!"""),
    # ---- memory
    R("out_of_memory", "https://2048ai.net/69790af77c1d88441d9007eb.html",
      r"""RuntimeError: CUDA out of memory. Tried to allocate 870.00 MiB (GPU 2; 23.70 GiB total capacity; 19.18 GiB already allocated; 323.81 MiB free; 21.70 GiB reserved in total by PyTorch)"""),
]
