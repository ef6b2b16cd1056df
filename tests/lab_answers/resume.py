"""Right and wrong answers to the exercises of labs/lab-resume.ipynb (see __init__.py)."""

from __future__ import annotations

from .answer import Exercise, R, W

LAB = "labs/lab-resume.ipynb"

RESUME = "labs/lab-resume.ipynb"

EXERCISES: list[Exercise] = [
    Exercise(RESUME, "make_checkpoint", right=(
        R("the optimizer's state loaded before the model's weights", """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    parts.model.load_state_dict(ckpt["model"])
    return parts, ckpt["step"]"""),
    ), wrong=(
        W("resume returns the example's step", """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    return parts, 400""",
          "save the step make_checkpoint is given"),
        W('weights only, a fresh optimizer (the hurried code)', """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    return parts, ckpt["step"]""",
          'Adam should continue at step 400', hides=True),
        W('the optimizer object saved instead of its state_dict', """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer = ckpt["optimizer"]
    return parts, ckpt["step"]""",
          'it holds a model or optimizer object'),
        W('the saved state loaded into an optimizer over another model', """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    parts.model = make_parts().model
    parts.model.load_state_dict(ckpt["model"])
    return parts, ckpt["step"]""",
          "built over another model's parameters"),
        W('only the learning rate carried over', """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "lr": parts.optimizer.param_groups[0]["lr"]}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer.param_groups[0]["lr"] = ckpt["lr"]
    return parts, ckpt["step"]""",
          'Adam should continue at step 400', hides=True),
    )),
    Exercise(RESUME, "exact_resume", right=(
        R("the sampler's state saved on its own, restore_rng without it", """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["rng"] = capture_rng()
    ckpt["sampler"] = parts.sampler.state_dict()
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    restore_rng(ckpt["rng"])
    parts.sampler.load_state_dict(ckpt["sampler"])
    return parts, step"""),
    ), wrong=(
        W('random state restored before make_parts() runs', """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["rng"] = capture_rng(parts.sampler)
    return ckpt


def resume_exact(ckpt):
    restore_rng(ckpt["rng"])
    parts, step = resume(ckpt)
    parts.sampler.load_state_dict(ckpt["rng"]["sampler"])
    return parts, step""",
          'restore_rng must run after make_parts()'),
        W('random state without the sampler', """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["rng"] = capture_rng()
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    restore_rng(ckpt["rng"])
    return parts, step""",
          'Pass the sampler to capture_rng and to restore_rng'),
        W('the sampler without the random state', """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["sampler"] = parts.sampler.state_dict()
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    parts.sampler.load_state_dict(ckpt["sampler"])
    return parts, step""",
          'the dropout masks differ', hides=True),
        W('torch reseeded with the seed of the run', """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["sampler"] = parts.sampler.state_dict()
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    torch.manual_seed(0)
    parts.sampler.load_state_dict(ckpt["sampler"])
    return parts, step""",
          'the dropout masks differ'),
    )),
    Exercise(RESUME, "load_colleague", right=(
        R("PyTorch's consume_prefix_in_state_dict_if_present", """
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

state = torch.load(path, map_location="cpu")
consume_prefix_in_state_dict_if_present(state, "module.")
model.load_state_dict(state)
return model"""),
        R('str.removeprefix (Python 3.9+)', """
state = torch.load(path, map_location="cpu")
model.load_state_dict({k.removeprefix("module."): v for k, v in state.items()})
return model"""),
    ), wrong=(
        W('strict=False', """
state = torch.load(path, map_location="cpu")
model.load_state_dict(state, strict=False)
return model""",
          'strict=False) skips every key', hides=True),
        W("str.replace('module.', '') everywhere in the key", """
state = torch.load(path, map_location="cpu")
model.load_state_dict({k.replace("module.", ""): v for k, v in state.items()})
return model""",
          "str.replace('module.', '') renames it"),
        W('no map_location', """
state = torch.load(path)
model.load_state_dict({k.removeprefix("module."): v for k, v in state.items()})
return model""",
          "map_location='cpu'"),
        W("lstrip of the letters, then of the dot", """
state = torch.load(path, map_location="cpu")
model.load_state_dict({k.lstrip("module").lstrip("."): v for k, v in state.items()})
return model""",
          "strips a set of characters, not a prefix"),
        W("the first 7 characters cut from every key", """
state = torch.load(path, map_location="cpu")
model.load_state_dict({key[len("module."):]: v for key, v in state.items()})
return model""",
          "A file without the prefix must load unchanged"),
    )),
    Exercise(RESUME, "atomic_save", right=(
        R("tempfile.NamedTemporaryFile in the target's folder", """
import tempfile

folder = os.path.dirname(os.path.abspath(path))
with tempfile.NamedTemporaryFile(dir=folder, delete=False) as f:
    try:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    except BaseException:
        f.close()
        os.remove(f.name)
        raise
os.replace(f.name, path)
descriptor = os.open(folder, os.O_RDONLY)
os.fsync(descriptor)
os.close(descriptor)"""),
    ), wrong=(
        W('torch.save straight onto the final name', """
torch.save(state, path)""",
          'torch.save(state, path) empties path before writing'),
        W('a temporary file copied onto the final name', """
import shutil

tmp = str(path) + ".tmp"
with open(tmp, "wb") as f:
    torch.save(state, f)
    f.flush()
    os.fsync(f.fileno())
shutil.copyfile(tmp, path)
os.remove(tmp)""",
          'writing a temporary file and then copying it', hides=True),
        W('renamed without fsync', """
tmp = str(path) + ".tmp"
with open(tmp, "wb") as f:
    torch.save(state, f)
os.replace(tmp, path)""",
          'Call f.flush() and os.fsync(f.fileno()) before os.replace', hides=True),
        W('the temporary file under tempfile.gettempdir()', """
import tempfile

tmp = os.path.join(tempfile.gettempdir(), os.path.basename(path) + ".tmp")
with open(tmp, "wb") as f:
    torch.save(state, f)
    f.flush()
    os.fsync(f.fileno())
os.replace(tmp, path)""",
          "The temporary file is not in path's folder"),
        W('Path.rename (os.rename underneath)', """
tmp = Path(str(path) + ".new")
with open(tmp, "wb") as f:
    torch.save(state, f)
    f.flush()
    os.fsync(f.fileno())
tmp.rename(path)""",
          "renames with os.rename"),
        W('fsync-ed and replaced, the folder never fsync-ed', """
tmp = Path(path).with_suffix(".partial")
with open(tmp, "wb") as f:
    torch.save(state, f)
    f.flush()
    os.fsync(f.fileno())
os.replace(tmp, path)""",
          "fsyncs of the folder after one", hides=True),
    )),
]
