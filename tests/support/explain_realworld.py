"""Real error messages, as learners pasted them into public GitHub issues and forum pages,
each labelled with the kind a PyTorch engineer would give its root cause.

Collected for ``tests/package/test_explain_realworld.py`` (which requires at least 95% right and no
crash) and ``benchmarks/explain_speed.py`` (which times ``explain`` over them). Each message
is copied as it appears at its source, including what the paste added: ``RuntimeError:``
or ``[rank2]:`` prefixes, quoted tracebacks, Jupyter arrows, markdown, log timestamps, lines
broken in the middle of a word, and truncation (a paste or an issue title that stops
mid-word). The label follows the root cause, not the surface words: a loss warning about
target sizes followed by a broadcast error is the target's shape; an illegal memory access
is not a device-side assert; "Caught RuntimeError in DataLoader worker process 3." with the
worker's own traceback cut off says nothing about the cause and stays ``unknown``.

Messages span PyTorch 0.3/0.4 ("Variable", "cuda runtime error (59)", "Expected object of
backend CUDA") to 2.x ("torch.OutOfMemoryError ... GPU 0 has a total capacity of"),
DataLoader workers, Lightning, Hugging Face, torchrun launchers, pytest summaries, and
libtorch C++ frames.
"""

from __future__ import annotations

from typing import NamedTuple


class RealMessage(NamedTuple):
    kind: str
    source: str
    message: str


R = RealMessage

MESSAGES: list[RealMessage] = [
    # ---- devices: the 0.4-1.x "backend" / "type" wordings, and today's
    R("device_mismatch", "https://github.com/inyeoplee77/SAGPool/issues/3",
      r"""RuntimeError: Expected object of backend CUDA but got backend CPU for argument #2 'mat2'"""),
    R("device_mismatch", "https://github.com/akanimax/T2F/issues/13",
      r"""RuntimeError: Expected object of backend CUDA but got backend CPU for argument #3 'index'"""),
    R("device_mismatch", "https://github.com/yatengLG/Focal-Loss-Pytorch/issues/17",
      r"""Expected object of backend CPU but got backend CUDA for argument #3 'index'"""),
    R("device_mismatch", "https://github.com/JingtongSu/sanity-checking-pruning/issues/1",
      r"""Traceback (most recent call last):
  File "LT_prune.py", line 299, in <module>
    main()
  File "LT_prune.py", line 208, in main
    mask = weight_copy.gt(thre).float().cuda()
RuntimeError: Expected object of backend CUDA but got backend CPU for argument #2 'other'"""),
    R("device_mismatch", "https://github.com/MengHao666/Minimal-Hand-pytorch/issues/22",
      r"""  File "/home/zhy/anaconda3/envs/minimal-hand-torch/lib/python3.7/site-packages/manopth/manolayer.py", line 188, in forward
    self.th_posedirs, th_pose_map.transpose(0, 1)).permute(2, 0, 1)
RuntimeError: Expected object of backend CPU but got backend CUDA for argument #2 'mat2'"""),
    R("device_mismatch", "https://github.com/activatedgeek/torchrl/issues/66",
      r"""Expected object of backend CUDA but got backend CPU for argument #4 'mat1'"""),
    R("device_mismatch", "https://github.com/hkzhang-git/HiNAS/issues/3",
      r"""RuntimeError: Expected object of backend CUDA but got backend CPU for argument #2 'weight'"""),
    R("device_mismatch", "https://github.com/amdegroot/ssd.pytorch/issues/323",
      r"""  File "/home/sypark/ssd.pytorch-master/layers/box_utils.py", line 43, in intersect
    box_b[:, 2:].unsqueeze(0).expand(A, B, 2))
RuntimeError: Expected object of type torch.FloatTensor but found type torch.cuda.FloatTensor for argument #2 'other'"""),
    R("device_mismatch", "https://github.com/leeyeehoo/CSRNet-pytorch/issues/3",
      r"""RuntimeError: Expected object of type torch.cuda.FloatTensor but found type torch.FloatTensor for argument #3 'other'."""),
    R("device_mismatch", "https://github.com/pytorch/pytorch/issues/9869",
      r"""RuntimeError: Expected object of type Variable[torch.FloatTensor] but found type Variable[torch.cuda.FloatTensor] for argument #1 'mat2'"""),
    R("device_mismatch", "https://github.com/Serge-weihao/CCNet-Pure-Pytorch/issues/6",
      r"""<ipython-input-8-4aaeaf6263b1> in forward(self, x)
     25         proj_value_W = proj_value.permute(0,2,1,3).contiguous().view(m_batchsize*height,-1,width)
---> 26         energy_H = (torch.bmm(proj_query_H, proj_key_H)+self.INF(m_batchsize, height, width)).view(m_batchsize,width,height,height).permute(0,2,1,3)
     27         energy_W = torch.bmm(proj_query_W, proj_key_W).view(m_batchsize,height,width,width)

RuntimeError: Expected object of type torch.FloatTensor but found type torch.cuda.FloatTensor for argument #3 'other'"""),
    R("device_mismatch", "https://github.com/phybrain/efficientdensenet_crnn/issues/2",
      r"""RuntimeError: Expected object of type torch.FloatTensor but found type torch.cuda.FloatTensor for argument #2 'source'"""),
    R("device_mismatch", "https://github.com/KDD-OpenSource/DeepADoTS/issues/96",
      r"""2018-06-21 07:58:28 [ERROR] src.evaluation.evaluator: An exception occurred while training DAGMM_NNAutoEncoder_withWindow on Syn Extreme Outliers (pol=0.25): Expected object of type torch.FloatTensor but found t
ype torch.cuda.FloatTensor for argument #4 'mat1'"""),
    R("device_mismatch", "https://github.com/wohlert/semi-supervised-pytorch/issues/7",
      r"""RuntimeError: Expected object of type torch.cuda.FloatTensor but found type torch.FloatTensor for argument #4 'mat1'"""),
    R("device_mismatch", "https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/207",
      r"""Expected object of type torch.FloatTensor but found type torch.cuda.FloatTensor"""),
    # ---- NumPy conversions
    R("numpy_conversion", "https://github.com/iMoonLab/PVRNet/issues/3",
      r"""TypeError: can't convert CUDA tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."""),
    R("numpy_conversion", "https://github.com/meteorshowers/X-StereoLab/issues/28",
      r"""cannot convert CUDA tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first"""),
    R("numpy_conversion", "https://github.com/jcwleo/random-network-distillation-pytorch/pull/14",
      r"""  File "/home/deployer/.pyenv/versions/3.6.8/envs/general/lib/python3.6/site-packages/torch/tensor.py", line 450, in __array__
    return self.numpy()
TypeError: can't convert CUDA tensor to numpy. Use Tensor."""),
    R("numpy_conversion", "https://github.com/wengong-jin/hgraph2graph/pull/35",
      r"""TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."""),
    R("numpy_conversion", "https://github.com/chflame163/ComfyUI_FaceSimilarity/issues/10",
      r"""  File "./ComfyUI/custom_nodes/comfyui_facesimilarity/py/face_similarity.py", line 10, in tensor2cv2
    npimage = image.numpy()
              ^^^^^^^^^^^^^
TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."""),
    # ---- CPU memory
    R("out_of_memory", "https://github.com/IvanoLauriola/MKLpy/issues/27",
      r"""DefaultCPUAllocator: not enough memory: you tried to allocate 5077901088 bytes."""),
    R("out_of_memory", "https://github.com/lllyasviel/Fooocus/issues/237",
      r"""RuntimeError: [enforce fail at ..\c10\core\impl\alloc_cpu.cpp:72] data. DefaultCPUAllocator: not enough memory: you tried to allocate 26214400 bytes."""),
    R("out_of_memory", "https://github.com/MaximeVandegar/Papers-in-100-Lines-of-Code/issues/10",
      r"""RuntimeError: [enforce fail at C:\b\abs_bao0hdcrdh\croot\pytorch_1675190257512\work\c10\core\impl\alloc_cpu.cpp:81] data. DefaultCPUAllocator: not enough memory: you tried to allocate 1981808640 bytes."""),
    R("out_of_memory", "https://github.com/Comfy-Org/Nvidia_RTX_Nodes_ComfyUI/issues/13",
      r"""RuntimeError: [enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: not enough memory: you tried to allocate 31850496000 bytes."""),
    R("out_of_memory", "https://github.com/mxfold/mxfold2/issues/20",
      r"""RuntimeError: [enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 132426121216 bytes. Error code 12 (Cannot allocate memory)"""),
    R("out_of_memory", "https://github.com/Sygil-Dev/sygil-webui/issues/905",
      r"""DefaultCPUAllocator: not enough memory"""),
    R("out_of_memory", "https://github.com/xinntao/Real-ESRGAN/issues/298",
      r"""Error [enforce fail at C:\actions-runner\_work\pytorch\pytorch\builder\windows\pytorch\c10\core\impl\alloc_cpu.cpp:81] data. DefaultCPUAllocator: not enough memory: you tried to allocate 1069551616 bytes."""),
    # ---- illegal memory access: not a device-side assert
    R("illegal_memory_access", "https://github.com/3dlg-hcvc/multi3drefer/issues/14",
      r"""RuntimeError: CUDA error: an illegal memory access was encountered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."""),
    R("illegal_memory_access", "https://github.com/alexandrosstergiou/SoftPool/issues/52",
      r"""RuntimeError: CUDA error: an illegal memory access was encountered."""),
    R("illegal_memory_access", "https://github.com/zeliu98/CloserLook3D/issues/3",
      r"""CUDA kernel failed : an illegal memory access was encountered

void group_points_kernel_wrapper(int, int, int, int, int, const float*, const int*, float*) at L:43 in _ext_src/src/group_points_gpu.cu"""),
    R("illegal_memory_access", "https://github.com/sshaoshuai/Pointnet2.PyTorch/issues/10",
      r"""THCudaCheck FAIL file=/pytorch/aten/src/THC/THCCachingHostAllocator.cpp line=265 error=77 : an illegal memory access was encountered"""),
    # ---- loss targets shaped differently from the predictions
    R("shape_mismatch", "https://github.com/Lornatang/RFB_ESRGAN-PyTorch/issues/2",
      r"""UserWarning: Using a target size (torch.Size([1, 3, 1356, 204
0])) that is different to the input size (torch.Size([1, 3, 1224, 2040])). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.
  
return F.l1_loss(input, target, reduction=self.reduction)"""),
    R("shape_mismatch", "https://github.com/weka511/hpa-scc/issues/38",
      r"""C:\Users\Weka\AppData\Local\Programs\Python\Python38\lib\site-packages\torch\nn\modules\loss.py:432: UserWarning: Using a target size (torch.Size([8, 18])) that is different to the input size (torch.Size([1, 18])). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.
  return F.mse_loss(input, target, reduction=self.reduction)"""),
    R("shape_mismatch", "https://github.com/weka511/hpa-scc/issues/38",
      r"""  File "train.py", line 114, in forward
    x = x.view(-1, 8* 16* 1* 30* 30)
RuntimeError: shape '[-1, 115200]' is invalid for input of size 72000"""),
    R("shape_mismatch", "https://github.com/jiwei0921/CoNet/issues/3",
      r"""E:\Salient Object Detection\2020ECCV\CoNet-master\CoNet\trainer.py:79: UserWarning: Using a target size (torch.Size([2, 256, 256])) that is different to the input size (torch.Size([2, 1, 256, 256])). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.
  loss4 = F.smooth_l1_loss(high_depth, depth, reduction='sum')"""),
    R("shape_mismatch", "https://github.com/deepset-ai/FARM/issues/229",
      r"""Train epoch 1/20 (Cur. train loss: 218.7825):  61%|██████▏   | 62/101 [01:40<02:25,  3.72s/it]/home/ec2-user/anaconda3/envs/python3/lib/python3.6/site-packages/torch/nn/modules/loss.py:431: UserWarning: **Using a target size (torch.Size([32, 1])) that is different to the input size (torch.Size([32]))**. This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size."""),
    R("shape_mismatch", "https://github.com/surajdakua/Crowd-Counting-Using-Pytorch/issues/5",
      r"""> UserWarning: Using a target size (torch.Size([1, 1, 768, 1024])) that is different to the input size (torch.Size([1, 1, 96, 128])). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size
...
...
...
RuntimeError: The size of tensor a (128) must match the size of tensor b (1024) at non-singleton dimension 3"""),
    R("shape_mismatch", "https://github.com/CanisW/TF3P/issues/4",
      r"""UserWarning: 
Using a target size (torch.Size([27, 2, 50, 50, 50])) 
that is different to the input size (torch.Size([9, 2, 50, 50, 50])). 
This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.
 loss = weight * F.mse_loss(ff, reconstructions)

RuntimeError: The size of tensor a (9) must match the size of tensor b (27) at non-singleton dimension 0"""),
    # ---- loss targets of the wrong dtype (the target is named outright)
    R("target_dtype", "https://github.com/mengxianglong123/weather-recognition/issues/1",
      r"""RuntimeError: Expected object of scaLar type Long but got scalar type FLoat for argument #2 ' target' in call to_ thnn_ nLL Loss_ forward"""),
    R("target_dtype", "https://github.com/qubvel-org/segmentation_models.pytorch/issues/466",
      r"""RuntimeError: Expected object of scalar type Long but got scalar type Float for argument #2 'target' in call to _thnn_nll_loss2d_forward"""),
    R("target_dtype", "https://github.com/chenyuntc/pytorch-book/issues/122",
      r"""Expected object of type torch.FloatTensor but found type torch.LongTensor for argument #2 'target'"""),
    R("target_dtype", "https://github.com/fastai/fastai/issues/1801",
      r"""RuntimeError: Expected object of scalar type Long but got scalar type Int for argument #2 'target'"""),
    # ---- dtypes elsewhere
    R("dtype_mismatch", "https://github.com/samleoqh/MSCG-Net/issues/7",
      r"""  File "/data/wdh/MSCG-Net-master/MSCG-Net-master/lib/loss/acw_loss.py", line 70, in encode_one_hot_label
    one_hot_label.scatter_(0, target.unsqueeze(1),1)
RuntimeError: Expected object of scalar type Long but got scalar type Float for argument #3 'index'"""),
    R("dtype_mismatch", "https://github.com/BindsNET/bindsnet/issues/201",
      r"""RuntimeError: Expected object of scalar type Long but got scalar type Float for argument #2 'mat2'"""),
    R("dtype_mismatch", "https://github.com/rusty1s/pytorch_cluster/issues/41",
      r"""RuntimeError: expected scalar type Long but found Float (data_ptr<long int> at /hardmnt/bumblebee1/data/fabio/research/DenseFusion/venv2/lib/python3.5/site-packages/torch/include/ATen/core/TensorMethods.h:5747)
frame #0: c10::Error::Error(c10::SourceLocation, std::string const&) + 0x33 (0x7f2282e1a813 in /home/poiesi/data/research/DenseFusion/venv2/lib/python3.5/site-packages/torch/lib/libc10.so)
frame #1: long* at::Tensor::data_ptr<long>() const + 0x16c (0x7f22106fdb8c in /home/poiesi/data/research/DenseFusion/venv2/lib/python3.5/site-packages/torch_cluster/fps_cpu.cpython-35m-x86_64-linux-gnu.so)"""),
    # ---- matrix products and Linear layers
    R("shape_mismatch", "https://github.com/databrickslabs/dolly/issues/90",
      r"""RuntimeError: mat1 and mat2 shapes cannot be multiplied (863x1 and 11x5120)"""),
    R("shape_mismatch", "https://github.com/RosettaCommons/RFdiffusion/issues/384",
      r"""  File "/home/admin/.local/lib/python3.9/site-packages/torch/nn/modules/linear.py", line 125, in forward
    return F.linear(input, self.weight, self.bias)
RuntimeError: mat1 and mat2 shapes cannot be multiplied (192721x92 and 103x64)"""),
    R("shape_mismatch", "https://github.com/VICO-UoE/MTPSL/issues/3",
      r"""  File "/share/castor/home/leh/projects/MTPSL/model/mapfns.py", line 36, in forward
    gamma = torch.mm(A_taskpair, self.gamma.t())
RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x2 and 6x64)"""),
    R("shape_mismatch", "https://github.com/MinusZoneAI/ComfyUI-Kolors-MZ/issues/21",
      r"""!!! Exception during processing!!! mat1 and mat2 shapes cannot be multiplied (2x5632 and 2816x1280)"""),
    R("shape_mismatch", "https://github.com/THUDM/GraphMAE/issues/51",
      r"""发生异常: RuntimeError
mat1 and mat2 shapes cannot be multiplied (2708x7 and 256x256)
  File "/home/youshen/work/GraphMAE/graphmae/models/edcoder.py", line 246, in mask_attr_prediction
    rep = self.encoder_to_decoder(enc_rep)"""),
    R("shape_mismatch", "https://github.com/ShmuelRonen/ComfyUI-FramePackWrapper_Plus/issues/12",
      r"""mat1 and mat2 shapes cannot be multiplied (1x768 and 4096x3072)"""),
    # ---- NumPy of a tensor that requires grad (0.4-1.x "Variable", 2.x "Tensor")
    R("numpy_conversion", "https://github.com/GuHY777/SS-VAE-pytorch/issues/1",
      r"""RuntimeError: Can't call numpy() on Variable that requires grad. Use var.detach().numpy() instead."""),
    R("numpy_conversion", "https://github.com/ccsasuke/umwe/issues/5",
      r"""`File "/multi_embedd/umwe/src/evaluation/sent_translation.py", line 74, in get_sent_translation_accuracy`
`emb2 = emb2.cpu().numpy()`
`RuntimeError: Can't call numpy() on Variable that requires grad. Use var.detach().numpy() instead.`"""),
    R("numpy_conversion", "https://github.com/pytorch/pytorch/pull/18481",
      r"""---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
<ipython-input-3-71834bbefd92> in <module>
      7 resnet = models.resnet34(pretrained=True)
      8 result = resnet(torch.randn(1, 3, 256, 256))
----> 9 result.numpy()

RuntimeError: Can't call numpy() on Variable that requires grad. Use var.detach().numpy() instead."""),
    R("numpy_conversion", "https://github.com/feiyuhuahuo/Yolact_minimal/issues/9",
      r"""Traceback (most recent call last):
  File "./server.py", line 131, in process
    img_numpy = draw_img(results, img_origin, args)
  File "/yolact/utils/output_utils.py", line 257, in draw_img
    class_ids, classes, boxes = [x[:args.visual_top_k].cpu().numpy() for x in results[:3]]
  File "/yolact/utils/output_utils.py", line 257, in <listcomp>
    class_ids, classes, boxes = [x[:args.visual_top_k].cpu().numpy() for x in results[:3]]
RuntimeError: Can't call numpy() on Variable that requires grad. Use var.detach().numpy() instead."""),
    R("numpy_conversion", "https://github.com/ClownW/Reinforcement-learning-with-PyTorch/issues/3",
      r"""RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."""),
    # ---- Embedding ids of the wrong dtype
    R("dtype_mismatch", "https://github.com/orcax/PGPR/issues/8",
      r"""RuntimeError: Expected tensor for argument #1 'indices' to have scalar type Long; but got torch.IntTensor instead (while checking arguments for embedding)"""),
    R("dtype_mismatch", "https://github.com/adrinta/MAGNET/issues/6",
      r"""RuntimeError: Expected tensor for argument #1 'indices' to have scalar type Long; but got torch.cuda.IntTensor instead (while checking arguments for embedding)"""),
    R("dtype_mismatch", "https://github.com/AIFSH/CosyVoice-ComfyUI/issues/70",
      r"""Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.cuda.FloatTensor instead (while checking arguments for embedding)"""),
    R("dtype_mismatch", "https://github.com/sksq96/pytorch-summary/issues/64",
      r""" File "/home/lkk/anaconda3/lib/python3.6/site-packages/torch/nn/functional.py", line 1454, in embedding
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
RuntimeError: Expected tensor for argument #1 'indices' to have scalar type Long; but got torch.cuda.FloatTensor instead (while checking arguments for embedding)"""),
    R("dtype_mismatch", "https://github.com/aioz-ai/MICCAI19-MedVQA/issues/10",
      r"""RuntimeError: Expected tensor for argument #1 'indices' to have scalar type Long; but got CUDAIntTensor instead (while checking arguments for embedding)"""),
    R("dtype_mismatch", "https://github.com/baaivision/See3D/issues/11",
      r"""Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be the same"""),
    # ---- segmentation targets of the wrong rank (one-hot or RGB masks, an extra channel)
    R("shape_mismatch", "https://github.com/elnino9ykl/ERF-PSPNet/issues/3",
      r"""RuntimeError: 1only batches of spatial targets supported (non-empty 3D tensors) but got targets of size: : [4, 976]"""),
    R("shape_mismatch", "https://github.com/open-mmlab/mmsegmentation/issues/3055",
      r"""RuntimeError: only batches of spatial targets supported (3D tensors) but got targets of size: : [2, 256, 256, 3]"""),
    R("shape_mismatch", "https://github.com/torchgeo/terratorch/pull/753",
      r"""RuntimeError: only batches of spatial targets supported (3D tensors) but got targets of size: : [64, 1, 224, 224]"""),
    R("shape_mismatch", "https://github.com/milesial/Pytorch-UNet/issues/226",
      r"""RuntimeError: 1only batches of spatial targets supported (3D tensors) but got targets of size: : [1, 1, 187, 621]"""),
    R("shape_mismatch", "https://github.com/pytorch/pytorch/issues/97094",
      r"""RuntimeError: only batches of spatial targets supported (3D tensors) but got targets of dimension: 1"""),
    R("shape_mismatch", "https://github.com/SforAiDl/KD_Lib/issues/122",
      r"""  File "/home/xxx/anaconda3/envs/tp/lib/python3.8/site-packages/torch/nn/functional.py", line 2390, in nll_loss
    ret = torch._C._nn.nll_loss2d(input, target, weight, _Reduction.get_enum(reduction), ignore_index)
RuntimeError: only batches of spatial targets supported (3D tensors) but got targets of dimension: 4"""),
    # Not a catalogue kind: a tuple where a tensor belongs (explain must not guess).
    R("unknown", "https://github.com/pytorch/pytorch/issues/97094",
      r"""TypeError: cross_entropy_loss(): argument 'target' (position 2) must be Tensor, not tuple"""),
    # ---- device-side asserts, 0.3-1.x "cuda runtime error (59)" wording
    R("device_side_assert", "https://github.com/pytorch/pytorch/issues/44867",
      r"""RuntimeError: cuda runtime error (59) : device-side assert triggered at /pytorch/aten/src/THC/THCTensorCopy.cu:102
/pytorch/aten/src/THC/THCTensorIndex.cu:395: void WrapIndexOp::operator()(long *, long *): block: [0,0,0], thread: [0,0,0] Assertion `idx < size && idx >= -size` failed.
THCudaCheck FAIL file=/pytorch/aten/src/THC/THCTensorCopy.cu line=102 error=59 : device-side assert triggered"""),
    R("device_side_assert", "https://github.com/leohsuofnthu/Pytorch-TextCNN/issues/1",
      r"""RuntimeError: cuda runtime error (59) : device-side assert triggered at /pytorch/aten/src/THC/generic/THCTensorMath.cu:26"""),
    R("device_side_assert", "https://github.com/zhanghang1989/PyTorch-Encoding/issues/23",
      r"""  THCudaCheck FAIL file=/pytorch/torch/lib/THC/generic/THCStorage.cu line=58 error=59 : device-side assert triggered
Traceback (most recent call last):
  File "main.py", line 171, in <module>
    main()
  File "main.py", line 157, in main
    train(epoch)
  File "main.py", line 92, in train
    loss.backward()
  File "/usr/local/lib/python3.6/site-packages/torch/autograd/variable.py", line 167, in backward
    torch.autograd.backward(self, gradient, retain_graph, create_graph, retain_variables)
  File "/usr/local/lib/python3.6/site-packages/torch/autograd/__init__.py", line 99, in backward
    variables, grad_variables, retain_graph)
RuntimeError: cuda runtime error (59) : device-side assert triggered at /pytorch/torch/lib/THC/generic/THCStorage.cu:58"""),
    R("device_side_assert", "https://github.com/yjxiong/tsn-pytorch/issues/25",
      r"""THCudaCheck FAIL file=/opt/conda/conda-bld/pytorch_1503965122592/work/torch/lib/THC/generated/../generic/THCTensorSort.cu line=153 error=59 : device-side assert triggered
Traceback (most recent call last):
  File "main.py", line 301, in <module>
    main()
  File "main.py", line 124, in main
    train(train_loader, model, criterion, optimizer, epoch)
  File "main.py", line 170, in train
    prec1, prec5 = accuracy(output.data, target, topk=(1,5))
  File "main.py", line 289, in accuracy
    _, pred = output.topk(maxk, 1, True, True)
RuntimeError: cuda runtime error (59) : device-side assert triggered at /opt/conda/conda-bld/pytorch_1503965122592/work/torch/lib/THC/generated/../generic/THCTensorSort.cu:153
terminate called without an active exception
Aborted (core dumped)"""),
    R("device_side_assert", "https://github.com/kimhc6028/pathnet-pytorch/issues/6",
      r"""RuntimeError: cuda runtime error (59) : device-side assert triggered at /opt/conda/conda-bld/pytorch_1512378360668/work/torch/lib/THC/generic/THCTensorMath.cu"""),
    # ---- DataLoader workers: re-raised errors and workers that died
    R("unknown", "https://github.com/aim-uofa/AdelaiDet/issues/525",
      r"""  File "C:\ProgramData\Anaconda3\envs\new\lib\site-packages\torch\utils\data\dataloader.py", line 1225, in _process_data
    data.reraise()
  File "C:\ProgramData\Anaconda3\envs\new\lib\site-packages\torch\_utils.py", line 429, in reraise
    raise self.exc_type(msg)
RuntimeError: Caught RuntimeError in DataLoader worker process 3."""),
    R("dataloader_worker_crash", "https://github.com/rowanz/r2c/issues/27",
      r"""RuntimeError: DataLoader worker (pid(s) 4743) exited unexpectedly"""),
    R("dataloader_worker_crash", "https://github.com/rowanz/r2c/issues/18",
      r"""RuntimeError: DataLoader worker (pid 6645) is killed by signal: Illegal instruction."""),
    R("dataloader_worker_crash", "https://github.com/makeuptransfer/SCGAN/issues/18",
      r"""RuntimeError: DataLoader worker (pid(s) 10116, 14052) exited unexpectedly"""),
    R("dataloader_worker_crash", "https://github.com/xuebinqin/BASNet/issues/32",
      r"""  File "C:\ProgramData\Anaconda3\lib\site-packages\torch\utils\data\dataloader.py", line 774, in _try_get_data
    raise RuntimeError('DataLoader worker (pid(s) {}) exited unexpectedly'.format(pids_str))
RuntimeError: DataLoader worker (pid(s) 16732) exited unexpectedly"""),
    # ---- CUDA out of memory, 0.3 to 2.x wordings
    R("out_of_memory", "https://github.com/One-2-3-45/One-2-3-45/issues/25",
      r"""torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.69 GiB (GPU 0; 14.56 GiB total capacity; 649.97 MiB already allocated; 1.31 GiB free; 1.01 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"""),
    R("out_of_memory", "https://github.com/antgroup/echomimic_v2/issues/115",
      r"""torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.22 GiB. GPU 0 has a total capacity of 15.69 GiB of which 3.71 GiB is free. Including non-PyTorch memory, this process has 11.14 GiB memory in use. Of the allocated memory 10.14 GiB is allocated by PyTorch, and 771.43 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"""),
    R("out_of_memory", "https://github.com/carolchenyx/MGFN./issues/35",
      r"""torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.70 GiB. GPU 0 has a total capacty of 6.00 GiB of which 0 bytes is free. Of the allocated memory 2.93 GiB is allocated by PyTorch, and 2.30 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"""),
    R("out_of_memory", "https://github.com/chnsh/DCRNN_PyTorch/issues/6",
      r"""`RuntimeError:CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 5.80 GiB total capacity; 4.36 GiB already allocated; 6.69 MiB free; 4.63 GiB reserved in total by PyTorch)`"""),
    R("out_of_memory", "https://github.com/FoundationVision/GenerateU/issues/10",
      r"""File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/linear.py", line 114, in forward
    return F.linear(input, self.weight, self.bias)
torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 496.00 MiB. GPU 0 has a total capacty of 14.75 GiB of which 235.06 MiB is free. Process 20398 has 14.52 GiB memory in use. Of the allocated memory 14.06 GiB is allocated by PyTorch, and 330.42 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"""),
    R("out_of_memory", "https://github.com/zihaosheng/VLM-RL/issues/12",
      r"""torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 258.00 MiB (GPU 0; 23.54 GiB total capacity; 11.75 GiB already allocated; 572.50 MiB free; 12.40 GiB reserved in total by PyTorch) If reserved memory is &gt;&gt; allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"""),
    R("out_of_memory", "https://github.com/singhsourabh/Resume-NER/issues/4",
      r"""RuntimeError: CUDA out of memory. Tried to allocate 92.00 MiB (GPU 0; 1.96 GiB total capacity; 1.46 GiB already allocated; 16.38 MiB free; 1.51 GiB reserved in total by PyTorch"""),
    R("out_of_memory", "https://github.com/lllyasviel/FramePack/issues/369",
      r""".......
...CUDA out of memory. Tried to allocate 30.29 GiB. GPU 0 has a total capacity of 10.74 GiB of which 3.69 GiB is free. Including non-PyTorch memory, this process has 6.68 GiB memory in use. Of the allocated memory 6.10 GiB is allocated by PyTorch, and 396.58 MiB is reserved by PyTorch but unallocated."""),
    R("out_of_memory", "https://github.com/ruoqianguo/DetNet_pytorch/issues/10",
      r"""RuntimeError: cuda runtime error (2) : out of memory at /opt/conda/conda-bld/pytorch_1513363039688/work/torch/lib/THC/generic/THCStorage.cu:58"""),
    R("out_of_memory", "https://github.com/jiesutd/NCRFpp/issues/121",
      r"""THCudaCheck FAIL file=/pytorch/torch/lib/THC/generic/THCStorage.cu line=58 error=2 : out of memory
Traceback (most recent call last):
  File "main.py", line 445, in <module>
    train(data)
  File "main.py", line 357, in train
    loss.backward()
  File "/home/jhy/py2.7/local/lib/python2.7/site-packages/torch/autograd/variable.py", line 167, in backward
    torch.autograd.backward(self, gradient, retain_graph, create_graph, retain_variables)
  File "/home/jhy/py2.7/local/lib/python2.7/site-packages/torch/autograd/__init__.py", line 99, in backward
    variables, grad_variables, retain_graph)
RuntimeError: cuda runtime error (2) : out of memory at /pytorch/torch/lib/THC/generic/THCStorage.cu:58"""),
    R("out_of_memory", "https://github.com/rowanz/neural-motifs/issues/58",
      r"""RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCTensorRandom.cu:25"""),
    R("out_of_memory", "https://github.com/chenyuntc/pytorch-best-practice/issues/3",
      r"""RuntimeError:cuda runtime error(2):out of memory"""),
    R("out_of_memory", "https://github.com/bluer555/CR-GAN/issues/8",
      r"""RuntimeError: CUDA error:out of memory"""),
    # ---- devices, 1.x-2.x wording, with launcher prefixes
    R("device_mismatch", "https://github.com/minghaochen/chatglm3-base-tuning/issues/8",
      r"""RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:2 and cuda:0!"""),
    R("device_mismatch", "https://github.com/NotACracker/COTR/issues/15",
      r"""RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cpu!"""),
    R("device_mismatch", "https://github.com/BorealisAI/scaleformer/issues/5",
      r"""Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cuda:0! (when checking argument for argument tensors in method wrapper_CUDA_cat)"""),
    R("device_mismatch", "https://github.com/dhcode-cpp/X-R1/issues/21",
      r"""[rank2]: RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:2! (when checking argument for argument tensors in method wrapper_CUDA_cat)
wandb: 
wandb: Find logs at: wandb/run-20250217_111613-89ccwwos/logs
W0217 11:16:21.705000 29355 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 29650 closing signal SIGTERM
W0217 11:16:21.708000 29355 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 29652 closing signal SIGTERM
E0217 11:16:24.683000 29355 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 1 (pid: 29651) of binary: /usr/bin/python3.11"""),
    R("device_mismatch", "https://github.com/rotem-shalev/Ham2Pose/pull/6",
      r"""RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! (when checking argument for argument mat2 in method wrapper_CUDA_mm)"""),
    # ---- checkpoints that do not fit the model
    R("state_dict_mismatch", "https://github.com/justchenhao/SILI_CD/issues/2",
      r"""RuntimeError: Error(s) in loading state_dict for OptimizedModule:
	Missing key(s) in state_dict: "_orig_mod.backbone.backbone.conv1.weight", "_orig_mod.backbone.backbone.bn1.weight", "_orig_mod.backbone.backbone.bn1.bias", "_orig_mod.backbone.backbone.bn1.running_mean", "_orig"""),
    R("state_dict_mismatch", "https://github.com/zyang-ur/onestage_grounding/issues/15",
      r"""Missing key(s) in state_dict: "visumodel.module_list.0.conv_0.weight", "visumodel.module_list.0.batch_norm_0.weight", "visumodel.module_list.0.batch_norm_0.bias", ...
Unexpected key(s) in state_dict: "module.visumodel.module_list.0.conv_0.weight", "module.visumodel.module_list.0.batch_norm_0.weight",...."""),
    R("state_dict_mismatch", "https://github.com/kenshohara/3D-ResNets-PyTorch/issues/257",
      r"""raise RuntimeError('Error(s) in loading state_dict for {}:\n\t{}'.format(
RuntimeError: Error(s) in loading state_dict for ResNet:
	Missing key(s) in state_dict: "conv1.weight".....

Unexpected key(s) in state_dict: "module.conv1.weight"...."""),
    R("state_dict_mismatch", "https://github.com/bearpaw/pytorch-classification/issues/27",
      r'''	Missing key(s) in state_dict: "module.bn.weight", "module.bn.bias", "module.bn.running_mean", "module.bn.running_var". 
	Unexpected key(s) in state_dict: "module.bn1.weight", "module.bn1.bias", "module.bn1.running_mean", "module.bn1.running_var", "module.layer1.0.conv3.weight", "module.layer1.0.bn3.weight", "module.layer1.0.bn3.bias", "module.layer1.0.bn3.running_mean", "module.layer1.0.bn3.running_var", "module.layer1.0.downsample.0.weight", "module.layer1.0.downsample.1.weight"'''),
    R("state_dict_mismatch", "https://github.com/guanghuixu/AnchorCaptioner/issues/4",
      r'''2021-07-11T09:31:47 ERROR: Error(s) in loading state_dict for M4CCaptioner:
        Missing key(s) in state_dict: "graph_proposal_net.t2t.encoder.layer.0.attention.self.query.weight", "graph_proposal_net.t2t.encoder.layer.0.attention.self.query.bias", "graph_proposal_net.t2t.encoder.layer.0.attention.self.key.weight"'''),
    R("state_dict_mismatch", "https://github.com/AlkaSaliss/DEmoClassi/issues/4",
      r'''/usr/local/lib/python3.6/dist-packages/torch/nn/modules/module.py in load_state_dict(self, state_dict, strict)
    828         if len(error_msgs) > 0:
    829             raise RuntimeError('Error(s) in loading state_dict for {}:\n\t{}'.format(
--> 830                                self.__class__.__name__, "\n\t".join(error_msgs)))
    831         return _IncompatibleKeys(missing_keys, unexpected_keys)
    832 

RuntimeError: Error(s) in loading state_dict for SepConvModelMT:
	Missing key(s) in state_dict: "conv_base.conv1.depthwise.weight", "conv_base.conv1.depthwise.bias", "conv_base.conv1.pointwise.weight", "conv_base.conv1.pointwise.bias", "conv_base.batchnorm1.weight"'''),
    R("state_dict_mismatch", "https://github.com/STVIR/pysot/issues/50",
      r'''  File "/home/tahaluf/.virtualenvs/CITYA/lib/python3.6/site-packages/torch/nn/modules/module.py", line 1483, in load_state_dict
    self.__class__.__name__, "\n\t".join(error_msgs)))
RuntimeError: Error(s) in loading state_dict for Sim2Sem:
        Missing key(s) in state_dict: "feature_module.layer2.0.shortcut.0.weight", "feature_module.layer2.0.shortcut.1.weight", "feature_module.layer2.0.shortcut.1.bias". 
        Unexpected key(s) in state_dict: "feature_module.layer1.2.conv1.weight", "feature_module.layer1.2.bn1.weight", "feature_module.layer1.2.bn1.bias"'''),
    # ---- torch.load(weights_only=True) refusals (2.4-2.6+ wordings)
    R("unsafe_unpickling", "https://github.com/gpoesia/minimo/pull/21",
      r"""_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint. (1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source. (2) Alternatively, to load with `weights_only=True` please check the recommended steps in the following error message."""),
    R("unsafe_unpickling", "https://github.com/tencent-ailab/SongGeneration/issues/63",
      r"""File "/workspace/SongGeneration/levo_inference.py", line 83, in forward auto_prompt = torch.load(auto_prompt_path) ^^^^^^^^^^^^^^^^^^^^^^^^^^^^ File "/workspace/conda/envs/songgen/lib/python3.11/site-packages/torch/serialization.py", line 1553, in load raise pickle.UnpicklingError(_get_wo_message(str(e))) from None _pickle.UnpicklingError: Weights only load failed. In PyTorch 2.6, we changed the default value of the weights_only argument in torch.load from False to True. Re-running torch.load with weights_only set to False will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source. Please file an issue with the following so that we can make weights_only=True compatible with your use case: WeightsUnpickler error: Unsupported operand 118"""),
    R("unsafe_unpickling", "https://github.com/D3voz/joy-caption-alpha-two-gui-mod/issues/7",
      r"""An error occurred while loading models: Weights only load failed. In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.
Please file an issue with the following so that we can make `weights_only=True` compatible with your use case: WeightsUnpickler error: Unsupported operand 118

Check the documentation of torch.load to learn more about types accepted by default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."""),
    R("unsafe_unpickling", "https://github.com/cubiq/ComfyUI_InstantID/issues/255",
      r"""Weights only load failed. In PyTorch 2.6, we changed the default value of the weights_only argument in torch.load from False to True. Re-running torch.load with weights_only set to False will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.
Please file an issue with the following so that we can make weights_only=True compatible with your use case: WeightsUnpickler error: unsupported persistent id encountered"""),
    R("unsafe_unpickling", "https://github.com/pytorch/pytorch/pull/141304",
      r"""_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint. 
        (1) Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.
        (2) Alternatively, to load with `weights_only=True` please check the recommended steps in the following error message.
        WeightsUnpickler error: Unsupported global: GLOBAL __main__._rebuild_class_that_uses_build_instruction was not an allowed global by default. Please use `torch.serialization.add_safe_globals([_rebuild_class_that_uses_build_instruction])` or the `torch.serialization.safe_globals([_rebuild_class_that_uses_build_instruction])` context manager to allowlist this global if you trust this class/function.

Check the documentation of torch.load to learn more about types accepted by default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."""),
    # ---- objects that cannot be pickled for DataLoader workers
    R("dataloader_pickling", "https://github.com/mathilde-b/CDA/issues/5",
      r"""AttributeError: Can't pickle local object 'get_loaders.<locals>.<lambda>'"""),
    R("dataloader_pickling", "https://github.com/ruotianluo/ImageCaptioning.pytorch/issues/154",
      r"""AttributeError: Can't pickle local object 'HybridLoader.__init__.<locals>.<lambda>'"""),
    R("dataloader_pickling", "https://github.com/Teoge/DMPR-PS/issues/17",
      r"""Exception has occurred: AttributeError
Can't pickle local object 'train_detector.<locals>.<lambda>'"""),
    R("dataloader_pickling", "https://github.com/taoyang1122/MutualNet/issues/5",
      r"""  File "E:\Anaconda3\envs\mutual\lib\multiprocessing\reduction.py", line 60, in dump
    ForkingPickler(file, protocol).dump(obj)
AttributeError: Can't pickle local object 'get_cifar.<locals>.<lambda>'"""),
    R("dataloader_pickling", "https://github.com/zeliu98/Group-Free-3D/issues/20",
      r"""AttributeError: Can't pickle local object 'get_loader.<locals>.my_worker_init_fn'"""),
    R("dataloader_pickling", "https://github.com/jwyang/graph-rcnn.pytorch/issues/39",
      r"""  File "C:\Program Files\Python36\lib\multiprocessing\reduction.py", line 60, in dump
    ForkingPickler(file, protocol).dump(obj)
AttributeError: Can't pickle local object 'vg_hdf5.gt_roidb. locals .lambda'"""),
    R("dataloader_pickling", "https://github.com/catalyst-team/catalyst/issues/1024",
      r"""Can't pickle local object 'get_loaders_from_params. <locals>. <lambda>"""),
    # ---- backward through a freed graph (0.4-1.x and 2.x wordings)
    R("backward_twice", "https://github.com/yinizhizhu/GNMOT/issues/12",
      r"""Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.
python-BaseException"""),
    R("backward_twice", "https://github.com/karpathy/nn-zero-to-hero/issues/31",
      r"""RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward."""),
    R("backward_twice", "https://github.com/pytorch/pytorch/issues/11192",
      r"""Trying to backward through the graph a second time, but the buffers have already been freed. Specify retain_graph=True when calling backward the first time."""),
    R("backward_twice", "https://github.com/3d-hand-shape/hand-graph-cnn/issues/55",
      r"""  File "/root/miniconda3/envs/myconda/lib/python3.7/site-packages/torch/autograd/__init__.py", line 127, in backward
    allow_unreachable=True)  # allow_unreachable flag
RuntimeError: Trying to backward through the graph a second time, but the saved intermediate results have already been freed. Specify retain_graph=True when calling backward the first time."""),
    R("backward_twice", "https://github.com/fudan-generative-vision/champ/issues/175",
      r"""Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed"""),
    # ---- tensors changed in place after autograd saved them
    R("inplace_modified", "https://github.com/Blealtan/efficient-kan/issues/22",
      r"""RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.cuda.FloatTensor [800, 256]], which is output 0 of AsStridedBackward0, is at versio"""),
    R("inplace_modified", "https://github.com/NVlabs/FUNIT/issues/23",
      r"""RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: 
```
```
[torch.FloatTensor [5, 6]], which is output 0 of TBackward, is at version 2; expected version 1 instead. 
```
```
Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True)."""),
    R("inplace_modified", "https://github.com/JDAI-CV/LIO/issues/9",
      r"""RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.cuda.FloatTensor [10, 49]], which is output 0 of SubBackward0, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True)."""),
    R("inplace_modified", "https://github.com/tamakoji/pytorch-syncbn/issues/4",
      r"""    loss.mean().backward()
  File "/python3.6/site-packages/torch/tensor.py", line 93, in backward
    torch.autograd.backward(self, gradient, retain_graph, create_graph)
  File "/python3.6/site-packages/torch/autograd/__init__.py", line 90, in backward
    allow_unreachable=True)  # allow_unreachable flag
RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation"""),
    R("inplace_modified", "https://github.com/WOW5678/CompNet/issues/2",
      r"""RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [1, 2, 2]], which is output 0 of AsStridedBackward0, is at version 1; expected version 0 instead. Hint: the backtrace further above shows the operation that failed to compute its gradient. The variable in question was changed in there or anywhere later. Good luck!/usr/local/lib/python3.7/dist-packages/torch/autograd/__init__.py:175: UserWarning: Error detected in BmmBackward0. Traceback of forward call that caused the error:
  File "/usr/lib/python3.7/runpy.py", line 193, in _run_module_as_main
    "__main__", mod_spec)"""),
    R("inplace_modified", "https://github.com/jasonppy/word-discovery/pull/4",
      r"""RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.cuda.FloatTensor [BS, 768, 399]], which is output 0 of AsStridedBackward0, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True)."""),
    R("inplace_modified", "https://github.com/PeixianChen/OAMN/issues/1",
      r"""RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.cuda.FloatTensor [2048, 702]], which is output 0 of TBackward, is at version 3; expected version 2 instead. Hint: the backtrace further above shows the operation that failed to compute its gradient. The variable in question was changed in there or anywhere later. Good luck!"""),
    # ---- backward on something that is not connected to the graph
    R("no_grad_fn", "https://github.com/ronghuaiyang/arcface-pytorch/issues/56",
      r"""Traceback (most recent call last):
  File "train.py", line 189, in train
    loss.backward()
  File "/usr/lib64/python3.6/site-packages/torch/tensor.py", line 107, in backward
    torch.autograd.backward(self, gradient, retain_graph, create_graph)
  File "/usr/lib64/python3.6/site-packages/torch/autograd/__init__.py", line 93, in backward
    allow_unreachable=True)  # allow_unreachable flag
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"""),
    R("no_grad_fn", "https://github.com/WebODM/OpenSplat/issues/135",
      r"""element 0 of tensors does not require grad and does not have a grad_fn
Exception raised from run_backward at ../torch/csrc/autograd/autograd.cpp:105 (most recent call first):
frame #0: c10::Error::Error(c10::SourceLocation, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >) + 0xb0 (0x7ea4ecc6f7f0 in /libtorch/lib/libc10.so)
frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&) + 0xfa (0x7ea4ecc17f7e in /libtorch/lib/libc10.so)"""),
    R("no_grad_fn", "https://github.com/Lightning-AI/pytorch-lightning/issues/19910",
      r"""{
	"name": "RuntimeError",
	"message": "element 0 of tensors does not require grad and does not have a grad_fn",
	"stack": "---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
Cell In[2], line 1
----> 1 trainer.test(ckpt_path='best', dataloaders=mnist_test)

File c:\\Users\\songj\\miniconda3\\envs\\kalman\\lib\\site-packages\\lightning\\pytorch\\trainer\\trainer.py:706, in Trainer.test(self, model, dataloaders, ckpt_path, verbose, datamodule)
    704     model = _maybe_unwrap_optimized(model)
    705     self.strategy._lightning_module = model"""),
    R("no_grad_fn", "https://github.com/davidmascharka/tbd-nets/issues/8",
      r"""RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"""),
    # ---- conv layers given the wrong number of channels (grayscale, HWC, mismatched stacks)
    R("conv_channels", "https://github.com/avBuffer/UNet3plus_pth/issues/19",
      r"""RuntimeError: Given groups=1, weight of size [64, 3, 3, 3], expected input[1, 1, 256, 256] to have 3 channels, but got 1 channels instead"""),
    R("conv_channels", "https://github.com/LambdaLabsML/examples/issues/39",
      r"""RuntimeError: Given groups=1, weight of size [128, 3, 3, 3], expected input[3, 1, 512, 512] to have 3 channels, but got 1 channels instead"""),
    R("conv_channels", "https://github.com/Comfy-Org/ComfyUI/issues/6419",
      r"""Given groups=1, weight of size [64, 4, 3, 3], expected input[1, 16, 128, 128] to have 4 channels, but got 16 channels instead"""),
    R("conv_channels", "https://github.com/midasklr/facelandmarks/issues/4",
      r"""RuntimeError: Given groups=1, weight of size [10, 3, 3, 3], expected input[1, 361, 424, 3] to have 3 channels, but got 361 channels instead"""),
    R("conv_channels", "https://github.com/zshuai8/FedGMM_ICML2023/issues/2",
      r"""RuntimeError: Given groups=1, weight of size [32, 3, 3, 3], expected input[128, 32, 32, 3] to have 3 channels, but got 32 channels instead"""),
    R("conv_channels", "https://github.com/LinZhuoChen/DUpsampling/issues/13",
      r'''" Given groups=1, weight of size [64, 128, 1, 1], expected input[1, 64, 180, 320] to have 128 channels, but got 64 channels instead"'''),
    R("conv_channels", "https://github.com/open-mmlab/mmsegmentation/issues/2330",
      r"""RuntimeError: Given groups=1, weight of size [32, 1, 3, 3], expected input[4, 3, 320, 220] to have 1 channels, but got 3 channels instead"""),
    # ---- class labels outside 0..C-1 (0.4 "out of bounds at ...", 1.x-2.x IndexError)
    R("target_out_of_range", "https://github.com/avisheknag17/public_ml_models/issues/2",
      r"""/usr/local/lib/python3.6/dist-packages/torch/nn/functional.py in nll_loss(input, target, weight, size_average, ignore_index, reduce, reduction)
   1836                          .format(input.size(0), target.size(0)))
   1837     if dim == 2:
-> 1838         ret = torch._C._nn.nll_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index)
   1839     elif dim == 4:
   1840         ret = torch._C._nn.nll_loss2d(input, target, weight, _Reduction.get_enum(reduction), ignore_index)

IndexError: Target 5 is out of bounds."""),
    R("target_out_of_range", "https://github.com/yangheng95/PyABSA/issues/375",
      r"""File /opt/conda/lib/python3.10/site-packages/torch/nn/functional.py:3029, in cross_entropy(input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing)
   3027 if size_average is not None or reduce is not None:
   3028     reduction = _Reduction.legacy_get_string(size_average, reduce)
-> 3029 return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)

IndexError: Target 2 is out of bounds."""),
    R("target_out_of_range", "https://github.com/monologg/JointBERT/issues/28",
      r"""ret = torch._C._nn.nll_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index)
IndexError: Target 12 is out of bounds."""),
    R("target_out_of_range", "https://github.com/pytorch/pytorch/pull/5299",
      r"""RuntimeError: Target 100 out of bounds at /.../pytorch/aten/src/THNN/generic/ClassNLLCriterion.c:56"""),
    R("target_out_of_range", "https://github.com/JindongJiang/RedNet/issues/13",
      r"""IndexError: Target -1 is out of bounds."""),
    R("target_out_of_range", "https://github.com/milesial/Pytorch-UNet/issues/291",
      r"""return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index) IndexError: Target 192 is out of bounds"""),
    R("target_out_of_range", "https://github.com/open-mmlab/mmsegmentation/issues/3216",
      r"""<<
loss = F.cross_entropy(
  File "C:\Users\ewoud\Documents\Semester_11\SemEIT\mmsegmentation\segm\lib\site-packages\torch\nn\functional.py", line 3014, in cross_entropy
    return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)
IndexError: Target 63 is out of bounds
>>"""),
    R("target_out_of_range", "https://github.com/pytorch/pytorch/issues/50259",
      r"""  File "D:\ProgramData\Anaconda3\lib\site-packages\torch\nn\functional.py", line 2264, in nll_loss
    ret = torch._C._nn.nll_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index)
IndexError: Target 117 is out of bounds."""),
    # ---- token ids beyond an Embedding's table
    R("target_out_of_range", "https://github.com/infinitylogesh/mutate/issues/2",
      r"""   2232     _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
-> 2233 return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)

IndexError: index out of range in self"""),
    R("target_out_of_range", "https://github.com/FudanNLP/CPT/issues/85",
      r"""│   2266 │   │   _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)                    │
│ ❱ 2267 │   return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)        │
│   2268                                                                                           │
╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
IndexError: index out of range in self"""),
    R("target_out_of_range", "https://github.com/mlverse/torch/issues/220",
      r"""Error in (function (weight, indices, padding_idx, scale_grad_by_freq,  : 
  index out of range in self (operator() at ../aten/src/ATen/native/TensorAdvancedIndexing.cpp:448)
frame #0: c10::Error::Error(c10::SourceLocation, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&) + 0x6a (0x7f0470065aaa in /home/key/libtorch/lib/libc10.so)"""),
    R("target_out_of_range", "https://github.com/allenai/longformer/issues/187",
      r"""    self.norm_type, self.scale_grad_by_freq, self.sparse)
  File "/home/pbc/anaconda3/envs/dnabert/lib/python3.6/site-packages/torch/nn/functional.py", line 1814, in embedding
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
IndexError: index out of range in self"""),
    R("target_out_of_range", "https://github.com/abhishekkrthakur/bert-sentiment/issues/6",
      r"""File "C:\Users\thanisb\AppData\Local\Continuum\anaconda3\lib\site-packages\torch\nn\functional.py", line 1724, in embedding
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
IndexError: index out of range in self
[Finished in 33.4s with exit code 1]"""),
    # ---- a GPU asked of a CPU-only build
    R("cuda_unavailable", "https://github.com/X-PLUG/MobileAgent/issues/60",
      r"""AssertionError: Torch not compiled with CUDA enabled"""),
    R("cuda_unavailable", "https://github.com/facebookresearch/detectron2/issues/460",
      r"""File "/home/xx/anaconda3/envs/tf-gpu/lib/python3.7/site-packages/torch/cuda/__init__.py", line 95, in _check_driver
    raise AssertionError("Torch not compiled with CUDA enabled")
AssertionError: Torch not compiled with CUDA enabled"""),
    R("cuda_unavailable", "https://github.com/asafamr/bertwsi/issues/1",
      r'''"""
raise AssertionError("Torch not compiled with CUDA enabled")
AssertionError: Torch not compiled with CUDA enabled
"""'''),
    R("cuda_unavailable", "https://github.com/pytorch/pytorch/issues/28111",
      r"""`AssertionError: Torch not compiled with CUDA enabled`"""),
    # ---- view() of a non-contiguous tensor
    R("view_non_contiguous", "https://github.com/sergeywong/cp-vton/issues/30",
      r"""RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead."""),
    R("view_non_contiguous", "https://github.com/zichaow/QG-Net/issues/11",
      r"""RuntimeError: view size is not compatible with input tensor's size and strid"""),
    R("view_non_contiguous", "https://github.com/facebookresearch/SparseConvNet/issues/220",
      r"""File "/home/libo/SparseConvNet/sparseconvnet/denseToSparse.py", line 58, in forward
    aa = aa.view(-1, input.size(1))
RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead."""),
    R("view_non_contiguous", "https://github.com/lppllppl920/EndoscopyDepthEstimation-Pytorch/issues/13",
      r"""    u_2_flat = u_2.view(-1)
**RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.**
Exception ignored in: <object repr() failed>"""),
    R("view_non_contiguous", "https://github.com/mit-han-lab/temporal-shift-module/issues/235",
      r"""view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces)."""),
    R("view_non_contiguous", "https://github.com/chikuanlin/re3-pytorch/issues/2",
      r"""> RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead."""),
    R("shape_mismatch", "https://github.com/luwei0917/TankBind/issues/31",
      r"""RuntimeError: mat1 and mat2 shapes cannot be multiplied (12x18 and 19x56)"""),
    R("shape_mismatch", "https://github.com/purbayankar/HybridSN-pytorch/issues/4",
      r"""RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x64 and 18496x256)"""),
    # ---- in-place changes to leaf tensors (parameters, inputs with requires_grad)
    R("leaf_inplace", "https://github.com/divelab/DIG/issues/164",
      r"""`RuntimeError: a leaf Variable that requires grad is being used in an in-place operation`"""),
    R("leaf_inplace", "https://github.com/NeurAI-Lab/SCoMMER/issues/1",
      r"""a view of a leaf Variable that requires grad is being used in an in-place operation."""),
    R("leaf_inplace", "https://github.com/modelscope/ms-swift/issues/4613",
      r"""ipdb> inputs_embeds += image_embeds.mean() * 0.
*** RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."""),
    R("leaf_inplace", "https://github.com/PingoLH/FCHarDNet/issues/61",
      r"""Traceback (most recent call last):
  File ".\test.py", line 107, in <module>
    cconv.weight[:,:,:,:] = W[:,:,:,:]
RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation."""),
    R("leaf_inplace", "https://github.com/Atcold/NYU-DLSP20/issues/765",
      r"""----> 6     E[:, 0::2] = torch.FloatTensor(np.sin(theta[:, 0::2]))
RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation."""),
    R("leaf_inplace", "https://github.com/BaiTheBest/SparseLLM/issues/13",
      r"""RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."""),
    # ---- NaN found by anomaly mode
    R("nonfinite", "https://github.com/Dmmm1997/DenseUAV/issues/7",
      r"""train error RuntimeError: Function 'SoftmaxBackward0' returned nan values in its 0th output"""),
    R("nonfinite", "https://github.com/kenziyuliu/MS-G3D/issues/36",
      r"""Function 'CudnnBatchNormBackward' returned nan values in its 0th output"""),
    R("nonfinite", "https://github.com/jayleicn/recurrent-transformer/issues/5",
      r"""  File "src/train.py", line 131, in train_epoch
    loss.backward()
RuntimeError: Function 'LogSoftmaxBackward' returned nan values in its 0th output."""),
    R("nonfinite", "https://github.com/huawei-noah/Efficient-Computing/issues/143",
      r"""RuntimeError: Function 'XlogyBackward0' returned nan values in its 1th output."""),
    # ---- device-side asserts, 1.x-2.x wording (an index or a label out of range on the GPU)
    R("device_side_assert", "https://github.com/karpathy/nanoGPT/issues/470",
      r"""_x = self.transformer.drop(tok_emb + pos_emb)
RuntimeError: CUDA error: device-side assert triggered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions._"""),
    R("device_side_assert", "https://github.com/NVIDIA/flowtron/issues/52",
      r"""C:/cb/pytorch_1000000000000/work/aten/src/THC/THCTensorIndex.cu:218: block: [0,0,0], thread: [106,0,0] Assertion `srcIndex < srcSelectDimSize` failed.
C:/cb/pytorch_1000000000000/work/aten/src/THC/THCTensorIndex.cu:218: block: [0,0,0], thread: [107,0,0] Assertion `srcIndex < srcSelectDimSize` failed."""),
    R("device_side_assert", "https://github.com/huggingface/trl/issues/2996",
      r"""../aten/src/ATen/native/cuda/Indexing.cu:1308: indexSelectLargeIndex,0,0] Assertion `srcIndex < srcSelectDimSize` failed.
../aten/src/ATen/native/cuda/Indexing.cu:1308: indexSelectLargeIndex: block: [58,0,0], thread: [99,0,0] Assertion `srcIndex < srcSelectDimSize` failed.
../aten/src/ATen/native/cuda/Indexing.cu:1308: indexSelectLargeIndex: block: [58,0: block: [6,0,0,0], thread: [100,0,0], thread: [52,0] Assertion `srcIndex < srcSelectDimSize` failed."""),
    R("device_side_assert", "https://github.com/MhLiao/DB/issues/233",
      r"""RuntimeError: transform: failed to synchronize: cudaErrorAssert: device-side assert triggered"""),
    R("device_side_assert", "https://github.com/huggingface/transformers/issues/97",
      r"""/pytorch/aten/src/THC/THCTensorIndex.cu:362: void indexSelectLargeIndex(TensorInfo<T, IndexType>, TensorInfo<T, IndexType>, TensorInfo<long, IndexType>, int, int, IndexType, IndexType, long) [with T = float, IndexType = unsigned int, DstDim = 2, SrcDim = 2, IdxDim = -2, IndexIsMajor = true]: block: [163,0,0], thread: [111,0,0] Assertion `srcIndex < srcSelectDimSize` failed."""),
    # ---- BCE targets shaped differently from the predictions (0.4-1.x "is deprecated", 1.x-2.x ValueError)
    R("shape_mismatch", "https://github.com/pytorch/pytorch/issues/25663",
      r"""ValueError: Target size (torch.Size([16])) must be the same as input size (torch.Size([16, 1]))"""),
    R("shape_mismatch", "https://github.com/pochih/FCN-pytorch/issues/15",
      r"""  File "C:\Users\83750\Anaconda3\lib\site-packages\torch\nn\functional.py", line 2075, in binary_cross_entropy_with_logits
 raise ValueError("Target size ({}) must be the same as input size ({})".format(target.size(), input.size()))
ValueError: Target size (torch.Size([2, 32, 480, 640])) must be the same as input size (torch.Size([2, 20, 480, 640]))"""),
    R("shape_mismatch", "https://github.com/Arctanxy/W-Net-PyTorch/issues/15",
      r"""  File "/home//pytorch/lib/python3.6/site-packages/torch/nn/functional.py", line 2752, in binary_cross_entropy
    "Please ensure they have the same size.".format(target.size(), input.size())
ValueError: Using a target size (torch.Size([64])) that is different to the input size (torch.Size([64, 1])) is deprecated. Please ensure they have the same size."""),
    R("shape_mismatch", "https://github.com/patrickloeber/pytorchTutorial/issues/30",
      r"""ValueError: Using a target size (torch.Size([4])) that is different to the input size (torch.Size([4, 2])) is deprecated. Please ensure they have the same size."""),
    R("shape_mismatch", "https://github.com/Megvii-BaseDetection/YOLOX/issues/797",
      r"""Target size (torch.Size([8400, 1])) must be the same as input size (torch.Size([16800, 1]))"""),
    R("shape_mismatch", "https://github.com/argusswift/YOLOv4-pytorch/issues/236",
      r"""ValueError: Target size (torch.Size([2, 52, 52, 3, 12])) must be the same as input size (torch.Size([2, 52, 52, 3, 10]))"""),
    R("shape_mismatch", "https://github.com/milesial/Pytorch-UNet/issues/244",
      r"""ValueError: Target size (torch.Size([1, 3, 256, 256])) must be the same as input size (torch.Size([1, 1, 256, 256]))

Process finished with exit code 1`"""),
    R("shape_mismatch", "https://github.com/lucidfrontier45/PyTorch-Book/issues/3",
      r"""ValueError: Target size (torch.Size([100])) must be the same as input size (torch.Size([100, 1]))"""),
    # ---- forum and blog pages (dtypes and devices)
    R("target_dtype", "https://openillumi.com/en/en-pytorch-double-expected-float-fix",
      r"""RuntimeError: Found dtype Double but expected Float"""),
    R("target_dtype", "https://openillumi.com/en/en-pytorch-float-long-cast-error-fix",
      r"""RuntimeError: result type Float can't be cast to the desired output type Long"""),
    R("dtype_mismatch", "https://duoke360.com/post/34176",
      r"""RuntimeError: Expected object of scalar type Float but got scalar type Double for argument #2 'mat1'"""),
    R("dtype_mismatch", "https://openillumi.com/en/en-fix-mat1-mat2-dtype-error-pytorch",
      r'''RuntimeError: "mat1 and mat2 must have the same dtype"'''),
    R("dtype_mismatch", "https://blog.51cto.com/u_16175525/6637440",
      r"""RuntimeError: expected scalar type Float but found Double"""),
    R("device_mismatch", "http://www.kouhan.cn/en/article/00014955",
      r"""RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same"""),
    R("device_mismatch", "https://duoke360.com/post/34766",
      r"""RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same"""),
    # ---- test runners and launchers around an OOM
    R("out_of_memory", "https://github.com/NVIDIA/Fuser/pull/2600",
      r"""00:17:01 FAILED tests/python/pytest_ops.py::test_definition_op_in_schedule_error_sub_complex128 - torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 32.00 MiB. GPU 0 has a total capacity of 39.39 GiB of which 11.94 MiB is free. Process 4101543 has 39.37 GiB memory in use. Of the allocated memory 9.27 GiB is allocated by PyTorch, and 8.61 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"""),
    R("out_of_memory", "https://github.com/mlcommons/GaNDLF/issues/484",
      r"""FAILED testing/test_full.py::test_train_regression_rad_2d_imagenet - RuntimeError: CUDA out of memory. Tried to allocate 392.00 MiB (GPU 0; 8.00 GiB total capacity; 6.88 GiB already allocated; 0 bytes free; 6.97 GiB reserved in total by PyTorch)"""),
    R("out_of_memory", "https://github.com/TRI-ML/permatrack/issues/11",
      r"""RuntimeError: CUDA out of memory. Tried to allocate 72.00 MiB (GPU 0; 7.93 GiB total capacity; 6.65 GiB already allocated; 48.38 MiB free; 6.92 GiB reserved in total by PyTorch) (malloc at /pytorch/c10/cuda/CUDACachingAllocator.cpp:289)
frame #0: c10::Error::Error(c10::SourceLocation, std::string const&) + 0x33 (0x7fcbce710193 in /home/mca/anaconda3/envs/CenterTrack_new/lib/python3.6/site-packages/torch/lib/libc10.so)"""),
    R("out_of_memory", "https://github.com/tue-mps/eomt/issues/12",
      r"""torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 9.18 GiB. GPU 3 has a total capacity"""),
    R("out_of_memory", "https://github.com/SYSU-SAIL/DASR/issues/81",
      r"""`RuntimeError: CUDA out of memory. Tried to allocate 4.46 GiB (GPU 0; 11.00 GiB total capacity; 6.78 GiB already allocated; 2.39 GiB free; 6.79 GiB reserved in total by PyTorch)`"""),
    R("out_of_memory", "https://github.com/Comfy-Org/ComfyUI/issues/5278",
      r"""torch.OutOfMemoryError: Allocation on device"""),
    # ---- broadcasting: two shapes that cannot be aligned
    R("broadcast_mismatch", "https://github.com/VITA-Group/ShapeMatchingGAN/issues/23",
      r"""RuntimeError: The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 0"""),
    R("broadcast_mismatch", "https://github.com/Alison-brie/MultiPropReg/issues/3",
      r"""RuntimeError: The size of tensor a (40) must match the size of tensor b (56) at non-singleton dimension 4"""),
    R("broadcast_mismatch", "https://github.com/jiwei0921/DMRA/issues/5",
      r"""RuntimeError: The size of tensor a (150) must match the size of tensor b (152) at non-singleton dimension 3"""),
    R("broadcast_mismatch", "https://github.com/pytorch/pytorch/issues/9446",
      r"""The error states: The size of tensor a (245) must match the size of tensor b (244) at non-singleton dimension 2."""),
    R("broadcast_mismatch", "https://github.com/gram-ai/capsule-networks/issues/28",
      r"""`RuntimeError: The size of tensor a (16) must match the size of tensor b (10) at non-singleton dimension 1`"""),
    R("broadcast_mismatch", "https://github.com/tanluren/yolov3-channel-and-layer-pruning/issues/148",
      r"""runtimeerror:the size of tensor a (208) must match the size of tensor b (416) at non-singleton dimension 3"""),
    R("broadcast_mismatch", "https://github.com/robbyant-research/MagicQuill/issues/43",
      r"""The size of tensor a (640) must match the size of tensor b (320) at non-singleton"""),
    R("broadcast_mismatch", "https://github.com/ruizhecao96/CMGAN/issues/30",
      r"""RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0"""),
    # ==== Round 2, collected after the catalogue above was written and labelled before
    # explain saw them: its first run got 12 of these 21 right (wrapped conv2d wording, the
    # THNN "3D or 4D input tensor expected", "Input, output and indices must be on the
    # current device", detectron2's "Loss became infinite or NaN" were unknown); the
    # catalogue learnt them afterwards.
    R("conv_channels", "https://github.com/Comfy-Org/ComfyUI/issues/8590",
      r"""I don't know whyExpected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [1, 16, 9, 64, 64]"""),
    R("conv_channels", "https://github.com/VisionRush/DeepFakeDefenders/issues/30",
      r"""RuntimeError: Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [1, 6, 6, 512, 512]"""),
    R("conv_channels", "https://github.com/long123524/SEANet_torch/issues/4",
      r"""-> 347     conv1_1 = self.activ(self.conv1_1(x))

RuntimeError: Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [2, 8, 3, 512, 512]"""),
    R("conv_channels", "https://github.com/amir-aghdam/3D-UNet/issues/5",
      r"""RuntimeError: Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [1, 1, 16, 240, 240, 160]"""),
    R("conv_channels", "https://github.com/CGCL-codes/AdvCLIP/issues/3",
      r"""Exception has occurred: RuntimeError
Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [32, 1024]"""),
    R("conv_channels", "https://github.com/hughperkins/pytorch/issues/39",
      r"""$ Invalid argument 2: 3D or 4D input tensor expected but got: [32 x 784] at /tmp/luarocks_nn-scm-1-8028/nn/lib/THNN/generic/SpatialConvolutionMM.c:33"""),
    R("conv_channels", "https://github.com/PladsElsker/sd-webui-inpaint-difference/issues/27",
      r"""10:53:25-006878 ERROR    Exception: Expected 3D (unbatched) or 4D (batched) input to
                         conv2d, but got input of size: [0]"""),
    R("conv_channels", "https://github.com/leizhang-geo/ST-CausalConvNet/issues/1",
      r"""RuntimeError: Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: [32, 24, 1, 12]"""),
    R("device_mismatch", "https://github.com/HoyTta0/KnowledgeDistillation/issues/4",
      r"""RuntimeError:input,output and indices must be on the current device"""),
    R("device_mismatch", "https://github.com/huggingface/accelerate/issues/210",
      r"""RuntimeError: Input, output and indices must be on the current device"""),
    R("device_mismatch", "https://github.com/qitianwu/DIFFormer/issues/4",
      r"""RuntimeError: indices should be either on cpu or on the same device as the indexed tensor (cpu)"""),
    R("device_mismatch", "https://github.com/yuhaozhang/summarize-radiology-findings/issues/7",
      r"""  File "D:\vandit\venv\lib\site-packages\torch\nn\functional.py", line 1852, in embedding
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
RuntimeError: Input, output and indices must be on the current device"""),
    R("device_mismatch", "https://github.com/salesforce/BLIP/pull/210",
      r"""### RuntimeError: indices should be either on cpu or on the same device as the indexed tensor (cpu)"""),
    R("nonfinite", "https://github.com/csuhan/opendet2/issues/29",
      r"""Runtime Error: floatingPointError: Loss became infinite or NaN at iteration=166!
loss_dict = {'loss_cls_ce': nan, 'loss_box_reg': nan, 'loss_ins_con': 0.0, 'loss_cls_up': nan}"""),
    R("nonfinite", "https://github.com/Megvii-BaseDetection/DynamicRouting/issues/42",
      r"""FloatingPointError: Loss became infinite or NaN at iteration=5593"""),
    R("nonfinite", "https://github.com/gist-ailab/uoais/issues/16",
      r"""  File "/root/anaconda3/envs/uoais/lib/python3.7/site-packages/detectron2/engine/train_loop.py", line 339, in write_metrics
    f"Loss became infinite or NaN at iteration={storage.iter}!\n"
FloatingPointError: Loss became infinite or NaN at iteration=0!
loss_dict = {'loss_cls': 157.09"""),
    R("nonfinite", "https://github.com/prannaykaul/lvc/issues/20",
      r"""File "xx/lvc/detectron2/engine/train_loop.py", line 254, in _detect_anomaly
    raise FloatingPointError(
FloatingPointError: Loss became infinite or NaN at iteration=1029!
loss_dict = {'loss_box_reg_stage0': tensor(nan, device='cuda:0', grad_fn=<MeanBackward0>), 'loss_box_reg_stage1': tensor(nan, device='cuda:0', grad_fn=<MeanBackward0>), 'loss_box_reg_stage2': tensor(nan, device='cuda:0', grad_fn=<MeanBackward0>), 'data_time': 0.007915766909718513}"""),
    R("cuda_unavailable", "https://github.com/sshaoshuai/PointRCNN/issues/128",
      r"""no kernel image is available for execution on the device"""),
    R("cuda_unavailable", "https://github.com/nv-tlabs/SCube/issues/7",
      r"""    fvdb_grids = fvdb.gridbatch_from_points(JaggedTensor(cropped_xyz), **grid_batch_kwargs_finest)
RuntimeError: CUDA error: no kernel image is available for execution on the device"""),
    R("cuda_unavailable", "https://github.com/CSAILVision/unifiedparsing/issues/6",
      r"""cudaCheckError() failed : no kernel image is available for execution on the device"""),
    R("cuda_unavailable", "https://github.com/vllm-project/vllm/issues/18835",
      r"""[Bug]: Help, RuntimeError: CUDA error: no kernel image is available for execution on the device"""),
    # ==== Round 3, collected and labelled after round 2 was learnt: first run 20 of 21 right
    # (the miss: a paste with full-width punctuation, "Attempting todeserialize ... torch。cuda").
    R("shape_mismatch", "https://github.com/hiyouga/LlamaFactory/issues/3765",
      r"""ValueError: Expected input batch_size (79) to match target batch_size (47).
    return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)
    ValueErrorreturn torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)    : 
return self._call_impl(*args, **kwargs)Expected input batch_size (487) to match target batch_size (47).
ValueError
  File "/home/caiqixu/Miniconda3/envs/xt/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1527, in _call_impl
: Expected input batch_size (103) to match target batch_size (95)."""),
    R("shape_mismatch", "https://github.com/pytorch/pytorch/issues/139031",
      r"""/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py in cross_entropy(input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing)
   3477     if size_average is not None or reduce is not None:
   3478         reduction = _Reduction.legacy_get_string(size_average, reduce)
-> 3479     return torch._C._nn.cross_entropy_loss(
   3480         input,
   3481         target,

ValueError: Expected input batch_size (60) to match target batch_size (10)."""),
    R("shape_mismatch", "https://github.com/bingykang/Fewshot_Detection/issues/87",
      r"""ValueError: Expected input batch_size (20) to match target batch_size (8)."""),
    R("shape_mismatch", "https://github.com/uoguelph-mlrg/Cutout/issues/16",
      r"""ValueError: Expected input batch_size (128) to match target batch_size (32), it happen all the time, the expexted size is 4 times batch size."""),
    R("shape_mismatch", "https://github.com/xinge008/Cylinder3D/issues/58",
      r"""expected input batch_size (6) to match target batch_size (2)"""),
    R("shape_mismatch", "https://github.com/gauthierdmn/question_generation/issues/4",
      r"""  File "/var/www/html/question_generate/env/lib/python3.6/site-packages/torch/nn/functional.py", line 1869, in nll_loss
    .format(input.size(0), target.size(0)))
ValueError: Expected input batch_size (1216) to match target batch_size (1280)"""),
    R("shape_mismatch", "https://github.com/Google-Health/medgemma/issues/12",
      r"""ValueError: Expected input batch_size (1324) to match target batch_size (0).`"""),
    R("shape_mismatch", "https://github.com/QwenLM/Qwen-VL/issues/231",
      r"""[BUG] <title>RuntimeError: stack expects each tensor to be equal size, but got [2] at entry 0 and [1] at entry 2,"""),
    R("shape_mismatch", "https://github.com/mk-minchul/dcface/issues/11",
      r"""RuntimeError: stack expects each tensor to be equal size, but got [3, 288, 224] at entry 0 and [3, 320, 256] at entry 1"""),
    R("shape_mismatch", "https://github.com/jongwook/onsets-and-frames/issues/27",
      r"""RuntimeError: stack expects each tensor to be equal size, but got [327680, 2] at entry 0 and [327680] at entry 6"""),
    R("shape_mismatch", "https://github.com/taishan1994/pytorch_triple_extraction/issues/21",
      r"""return torchstack(batch, dim =' . out=out)
RuntimeError: stack expects each tensor to be equal size, but got [22] at entry 0 and [106] at entry 1"""),
    R("shape_mismatch", "https://github.com/leftthomas/SRGAN/issues/118",
      r"""RuntimeError: stack expects each tensor to be equal size, but got [1, 22, 22] at entry 0 and [3, 22, 22] at entry 5"""),
    R("shape_mismatch", "https://github.com/curiousily/Getting-Things-Done-with-Pytorch/pull/14",
      r"""Fix error 'RuntimeError: stack expects each tensor to be equal size, but got [0] at entry 0 and [1] at entry 3'"""),
    R("shape_mismatch", "https://github.com/muzairkhattak/PromptSRC/issues/6",
      r"""**RuntimeError: grad can be implicitly created only for scalar outputs**"""),
    R("shape_mismatch", "https://github.com/xxlong0/SparseNeuS/issues/42",
      r"""Traceback (most recent call last):
  File "/media/disk8T/zmx/sparseneus/exp_runner_finetune.py", line 320, in train
    loss.backward()
  File "/home/zhumingxia/anaconda3/envs/spneus/lib/python3.10/site-packages/torch/autograd/__init__.py", line 85, in _make_grads
    raise RuntimeError("grad can be implicitly created only for scalar outputs")
Thank you in advance."""),
    R("shape_mismatch", "https://github.com/WisconsinAIVision/MaskPoint/issues/7",
      r"""  File "/export/home/hanxiaobing/anaconda3/envs/maskpoint/lib/python3.7/site-packages/torch/autograd/__init__.py", line 50, in _make_grads
    raise RuntimeError("grad can be implicitly created only for scalar outputs")
RuntimeError: grad can be implicitly created only for scalar outputs"""),
    R("shape_mismatch", "https://github.com/PRBonn/LiDAR-MOS/issues/56",
      r"""RuntimeError("grad can be implicitly created only for scalar outputs")"""),
    R("cuda_unavailable", "https://github.com/jackaduma/CycleGAN-VC2/issues/10",
      r"""RuntimeError： Attempting todeserialize object on a CUDA device but torch。cuda.is_available() is False。"""),
    R("cuda_unavailable", "https://github.com/hkchengrex/Cutie/issues/37",
      r"""RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU."""),
    R("cuda_unavailable", "https://github.com/yunjey/pytorch-tutorial/issues/249",
      r"""RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use torch.load with map_locatio
n=torch.device('cpu') to map your storages to the CPU."""),
    R("cuda_unavailable", "https://github.com/HelixNGC7293/DeforumStableDiffusionLocal/issues/66",
      r"""    raise RuntimeError('Attempting to deserialize object on a CUDA '
RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU."""),
    # ==== Round 4, from tutorial and Q&A pages rather than issues, labelled before explain saw
    # them: first run 4 of 5 right (the 0.4 "leaf variable has been moved into the graph
    # interior" was unknown).
    R("device_side_assert", "https://theneuralbase.pages.dev/huggingface/errors/runtimeerror-cuda-error-device-side-assert/",
      r"""Traceback (most recent call last):
File "train.py", line 45, in <module>
outputs = model(input_ids)
File "/usr/local/lib/python3.9/site-packages/torch/nn/modules/module.py", line 1190, in _call_impl
return forward_call(*input, **kwargs)
File "/usr/local/lib/python3.9/site-packages/transformers/modeling_utils.py", line 1234, in forward
outputs = self.base_model(input_ids, attention_mask=attention_mask)
RuntimeError: CUDA error: device-side assert triggered
CUDA kernel errors might be asynchronously reported at some other API call, so the stack trace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1."""),
    R("device_side_assert", "http://www.kouhan.cn/en/article/00025563",
      r"""CUDA runtime error (59) : device-side assert triggered"""),
    R("device_mismatch", "https://apxml.com/courses/getting-started-with-pytorch/chapter-8-monitoring-debugging-models/checking-device-placement",
      r"""RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! (when checking argument for argument mat1 in method wrapper_addmm)"""),
    R("leaf_inplace", "https://github.com/lhycms/Deep_Learning_Notes",
      r"""In [7]:
x += 1  # in-place
y = x + 1 # not in place

RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."""),
    R("leaf_inplace", "https://iifx.dev/ja/articles/343562426",
      r"""RuntimeError: leaf variable has been moved into the graph interior"""),
    # ---- export: torch.jit.trace / torch.jit.script / torch.export / ONNX Runtime
    R("export_data_dependent", "https://github.com/apple/ml-stable-diffusion/issues/13",
      r"""/Applications/ml-stable-diffusion-main/python_coreml_stable_diffusion/layer_norm.py:61: TracerWarning: Converting a tensor to a Python boolean might cause the trace to be incorrect. We can't record the data flow of Python values, so this value will be treated as a constant in the future. This means that the trace might not generalize to other inputs!"""),
    R("export_data_dependent", "https://github.com/facebookresearch/deit/issues/230",
      r"""TracerWarning: Converting a tensor to a Python boolean might cause the trace to be incorrect. We can't record the data flow of Python values, so this value will be treated as a constant in the future. This means that the trace might not generalize to other inputs!
  assert condition, message"""),
    R("export_data_dependent", "https://github.com/pytorch/pytorch/issues/157355",
      r"""torch.fx.experimental.symbolic_shapes.GuardOnDataDependentSymNode: Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)). (Size-like symbols: none)"""),
    R("export_data_dependent", "https://github.com/OHF-Voice/piper1-gpl/issues/148",
      r"""  File "/usr/local/lib/python3.12/dist-packages/torch/fx/experimental/symbolic_shapes.py", line 7574, in _evaluate_expr
    raise self._make_data_dependent_error(
torch.fx.experimental.symbolic_shapes.GuardOnDataDependentSymNode: Could not guard on data-dependent expression Eq(1, u6) | Eq(96*u6, 0) (unhinted: Eq(1, u6) | Eq(96*u6, 0)).  (Size-like symbols: u6)"""),
    R("export_data_dependent", "https://github.com/pytorch/pytorch/issues/147672",
      r"""torch._dynamo.exc.UserError: Could not guard on data-dependent expression Eq(256*u0, 256) (unhinted: Eq(256*u0, 256))."""),
    R("export_static_shape", "https://github.com/onnx/sklearn-onnx/issues/303",
      r"""InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Got invalid dimensions for input: float_input for the following indices
 index: 0 Got: 38 Expected: 1
 Please fix either the inputs or the model."""),
    R("export_static_shape", "https://github.com/Jamiroquai88/VBDiarization/issues/21",
      r"""onnxruntime.capi.onnxruntime_pybind11_state.InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Got invalid dimensions for input: 0 for the following indices
index: 2 Got: 56 Expected: 100"""),
    R("script_global", "https://github.com/pytorch/pytorch/issues/124461",
      r"""RuntimeError:
python value of type 'int' cannot be used as a value. Perhaps it is a closed over global variable? If so, please consider passing it in as an argument or use a local varible instead.:"""),
    R("script_global", "https://github.com/pytorch/pytorch/issues/44013",
      r"""RuntimeError: 
python value of type 'float' cannot be used as a value:
  File "<ipython-input-12-d314a89b06cb>", line 7
@torch.jit.script
def test(x):
  x[x>0.5] = value 
             ~~~~~ <--- HERE
  return x"""),
    R("script_global", "https://github.com/pytorch/pytorch/issues/41288",
      r"""RuntimeError: python value of type 'str' cannot be used as a value:"""),
    R("export_input_name", "https://github.com/RedHatQuickCourses/rhods-qc-apps/issues/28",
      r"""  File "/home/akugel/anaconda3/lib/python3.11/site-packages/onnxruntime/capi/onnxruntime_inference_collection.py", line 198, in _validate_input
    raise ValueError(
ValueError: Required inputs (['dense_3_input']) are missing from input feed (['dense_input'])."""),
    R("export_input_name", "https://github.com/SihabSahariar/Yolov11-ONNX-Object-Detection/issues/2",
      r"""ValueError: Required inputs (['images']) are missing from input feed (['data'])."""),
    R("export_input_name", "https://github.com/microsoft/onnxruntime/issues/6389",
      r"""onnxruntime.capi.onnxruntime_pybind11_state.InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Invalid Feed Input Name:token_type_ids"""),
]
