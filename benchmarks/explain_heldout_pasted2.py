"""Held-out check of explain on pastes, third round: real messages collected after
every change of the paste-reading round (the fixes of benchmarks/explain_heldout_pasted.py included), from
threads that no test and no other benchmark uses, labelled by root cause from their threads
before explain was run on them, and scored once; nothing was changed for them.

Prints each miss, the accuracy and the crashes (must be 0).

    python benchmarks/explain_heldout_pasted2.py

Its one run: benchmarks/explain_heldout.md.
"""

from __future__ import annotations

import sys

from explain_heldout_pasted import score  # the same scorer (this folder)

DEV = "Expected all tensors to be on the same device, but found at least two devices, "
OBJ = ("can't convert np.ndarray of type numpy.object_. The only supported types are: float64, float32, "
       "float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.")
CASES: list[tuple[str, str, str]] = [
    # ---- shapes: titles, a Chinese title, a UI's
    ("shape_mismatch", "https://github.com/XLabs-AI/x-flux-comfyui/issues/153",
     "Flux应用IPAdapter mat1 and mat2 shapes cannot be multiplied (1x1024 and 768x16384)"),
    ("shape_mismatch", "https://github.com/Comfy-Org/ComfyUI/issues/4967",
     "ApplyFluxIPAdapter mat1 and mat2 shapes cannot be multiplied (1x1280 and 768x16384)"),
    ("shape_mismatch", "https://github.com/ekosman/AnomalyDetectionCVPR2018-Pytorch/issues/229",
     "Mat1 and Mat2 shapes cannot be multiplied:"),
    ("shape_mismatch", "https://github.com/meetps/pytorch-semseg/issues/127",
     '`Traceback (most recent call last):\n  File "train.py", line 159, in train\n    val_loss = '
     "loss_fn(input=outputs, target=labels)\n  File \"/anaconda3/lib/python3.6/site-packages/torch/nn/"
     'functional.py", line 1405, in nll_loss\n    .format(input.size(0), target.size(0)))\nValueError: '
     "Expected input batch_size (183000) to match target batch_size (187500).`"),
    ("shape_mismatch", "https://github.com/deepset-ai/FARM/issues/100",
     "`Expected input batch_size (8) to match target batch_size (32)`"),
    ("shape_mismatch", "https://github.com/zai-org/GLM-4/issues/291",
     "两张A800训练GLM-4v-9B，ValueError: Expected input batch_size (3430) to match target batch_size (232)."),
    ("shape_mismatch", "https://github.com/PozzettiAndrea/ComfyUI-DepthAnythingV3/issues/4",
     "Given normalized_shape=[1536], expected input with shape [*, 1536], but got input of size[1, 2166, 3072]"),
    ("shape_mismatch", "https://github.com/pengzhiliang/MAE-pytorch/issues/93",
     "I'm running mae's finetune\"return torch.layer_norm(input, normalized_shape, weight, bias, eps, "
     "torch.backends.cudnn.enabled)\nRuntimeError: Given normalized_shape=[768], expected input with shape "
     "[*, 768], but got input of size[12]\",Please tell me what the problem is."),
    ("shape_mismatch", "https://github.com/ViTAE-Transformer/ViTDet/issues/25",
     "RuntimeError: Given normalized_shape=[256], expected input with shape [*, 256], but got input of size"
     "[4, 256, 200, 200]"),
    ("shape_mismatch", "https://github.com/HappyColor/SpeechFormer/issues/3",
     "RuntimeError: Given normalized_shape=[96], expected input with shape [*, 96], but got input of size"
     "[1, 101, 76]"),
    ("shape_mismatch", "https://github.com/hao-ai-lab/cse234-w25-PA/pull/1",
     "torch.layer_norm(torch.matmul(x1_val, x2_val), normalized_shape=[3])\nRuntimeError: Given "
     "normalized_shape=[3], expected input with shape [*, 3], but got input of size[3, 4]"),
    # ---- DataLoader workers that died (shared memory, Docker, macOS)
    ("dataloader_worker_crash", "https://github.com/facebookresearch/detectron2/issues/384",
     "When running a training in the docker container, I received the following error: \n"
     "`RuntimeError: DataLoader worker (pid(s) 25) exited unexpectedly`"),
    ("dataloader_worker_crash", "https://github.com/msr-fiddle/pipedream/issues/28",
     "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory "
     "(shm).\nTraceback (most recent call last):\n  File \"/opt/conda/lib/python3.6/site-packages/torch/utils/"
     "data/_utils/signal_handling.py\", line 63, in handler\n    _error_if_any_worker_fails()\nRuntimeError: "
     "DataLoader worker (pid 325) is killed by signal: Bus error."),
    ("dataloader_worker_crash", "https://github.com/YuanGongND/ast/issues/112",
     "RuntimeError: DataLoader worker (pid 39424) exited unexpectedly with exit code 1. Details are lost due to "
     "multiprocessing. Rerunning with num_workers=0 may give better error trace."),
    ("dataloader_worker_crash", "https://github.com/CSAILVision/semantic-segmentation-pytorch/issues/80",
     "here is the error: **RuntimeError: DataLoader worker (pid 7948) exited unexpectedly with exit code 1**"),
    ("dataloader_worker_crash", "https://github.com/jackyjsy/CVPR21Chal-SLR/issues/5",
     "RuntimeError: DataLoader worker (pid(s) 49) exited unexpectedly when trying to test config files in Conv3D"),
    ("dataloader_worker_crash", "https://github.com/verl-project/verl/issues/730",
     '  File "/usr/local/miniconda3/envs/logicRL/lib/python3.10/site-packages/torch/utils/data/_utils/'
     'signal_handling.py", line 67, in handler\n    _error_if_any_worker_fails()\nRuntimeError: DataLoader '
     "worker (pid 3052708) exited unexpectedly with exit code 1. Details are lost due to multiprocessing. "
     "Rerunning with num_workers=0 may give better error trace."),
    ("dataloader_worker_crash", "https://github.com/bytedance/Protenix/issues/2",
     "RuntimeError: DataLoader worker (pid 572) is killed by signal: Bus error. It is possible that "
     "dataloader's workers are out of shared memory. Please try to raise your shared memory limit."),
    ("dataloader_worker_crash", "https://github.com/Megvii-BaseDetection/YOLOX/issues/1422",
     "RuntimeError: DataLoader worker (pid(s) 197) exited"),
    ("dataloader_worker_crash", "https://github.com/researchmm/Stark/issues/7",
     "I found that the training process will randomly crashed with `RuntimeError: DataLoader worker (pid(s) "
     "36469) exited unexpectedly`, is that normal?"),
    ("dataloader_worker_crash", "https://github.com/pytorch/pytorch/issues/5040",
     "Give a better error when we run out of shared memory, instead of \"RuntimeError: DataLoader worker "
     "(pid 13) is killed by signal: Bus error.\""),
    # ---- a Dataset defined in a notebook, spawned workers
    ("dataloader_pickling", "https://github.com/cj-mills/pytorch-yolox-object-detection-tutorial-code/issues/7",
     "**File \"<string>\", line 1, in <module>\n  File \"C:\\Users\\ABC\\env\\lib\\multiprocessing\\spawn.py\", "
     "line 116, in spawn_main\n    exitcode = _main(fd, parent_sentinel)\n  File \"C:\\Users\\ABC\\env\\lib\\"
     "multiprocessing\\spawn.py\", line 126, in _main\n    self = reduction.pickle.load(from_parent)\n"
     "AttributeError: Can't get attribute 'HagridDataset' on <module '__main__' (built-in)>**"),
    ("dataloader_pickling", "https://github.com/computational-cell-analytics/dl-for-micro/issues/20",
     "  File \"C:\\Users\\apoliti\\Miniconda3\\envs\\dl-for-micro-2\\Lib\\multiprocessing\\spawn.py\", line 132, "
     "in _main\n    self = reduction.pickle.load(from_parent)\n           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
     "AttributeError: Can't get attribute 'CustomDataset' on <module '__main__' (built-in)>"),
    # ---- NumPy object arrays into torch
    ("numpy_conversion", "https://github.com/aigc-apps/sd-webui-EasyPhoto/issues/380",
     "2024-01-19 15:17:38,375 - EasyPhoto - Start 15 Portrait enhancement.\nTraceback (most recent call last):\n"
     '  File "D:\\AI2\\sd-webui-aki-v4.5\\extensions\\sd-webui-EasyPhoto\\scripts\\easyphoto_utils\\common_utils.py",'
     " line 640, in convert_to_video\n    frames = torch.from_numpy(np.array(frames))\nTypeError: " + OBJ),
    ("numpy_conversion", "https://github.com/changwn/scFEA/issues/62",
     "input type- can't convert np.ndarray of type numpy.object"),
    ("numpy_conversion", "https://github.com/CMACH508/MlanDTI/issues/2",
     "TypeError: can't convert np.ndarray of type numpy.object_"),
    ("numpy_conversion", "https://github.com/georgian-io/Multimodal-Toolkit/issues/2",
     "---> 51             if self.cat_feats is not None else torch.zeros(0)\n\nTypeError: " + OBJ),
    ("numpy_conversion", "https://github.com/David-BominWei/DeepLPI/issues/4",
     "**Error Message**: TypeError: can't convert np.ndarray of type numpy.object_. The only supported types "
     "are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool."),
    ("numpy_conversion", "https://github.com/taishan1994/BERT-Relation-Extraction/issues/8",
     "TypeError: can't convert np.ndarray of type numpy.object_. The only supported types are: float64, "
     "float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, and "
     "bool.\n\n运行re_main.py,【train】1/1 135326/207756时出现了这个问题，不知道怎么办"),
    ("numpy_conversion", "https://github.com/med-air/Contrastive-COVIDNet/issues/6",
     '  File "D:\\lambert\\CL\\Contrastive-COVIDNet-master\\code\\train.py", line 79, in train\n    new_label = '
     "torch.from_numpy(np.array([target[i]]))\nTypeError: " + OBJ + "\n\nProcess finished with exit code 1"),
    # ---- devices
    ("device_mismatch", "https://github.com/BenMSK/trajectory_prediction_TraPHic/issues/1",
     DEV + "cuda:0 and cpu!\nHow can i solve this problem"),
    ("device_mismatch", "https://github.com/sipie800/ComfyUI-PuLID-Flux-Enhanced/issues/35",
     DEV + "cuda:0 and cpu! (when checking argument for argument weight in method "
     "wrapper_CUDA__native_layer_norm)"),
    ("device_mismatch", "https://github.com/jemisjoky/TorchMPS/issues/8",
     "When trying to run a module on a gpu i get the error:\n`RuntimeError: Expected object of device type cuda "
     "but got device type cpu for argument #2 'mat2' in call to _th_bmm`"),
    ("device_mismatch", "https://github.com/vladmandic/sdnext/issues/1726",
     "14:10:16-737529 ERROR    Exception: Expected all tensors to be on the same device, but found at least "
     "two devices, cpu\n                         and cuda:0! (when checking argument for argument mat1 in "
     "method wrapper_CUDA_addmm)"),
]


if __name__ == "__main__":
    sys.exit(score(CASES))
