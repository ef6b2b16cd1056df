"""Right and wrong answers to the exercises of labs/lab-resume.ipynb (see __init__.py)."""

from __future__ import annotations

from .answer import Exercise, R, W

LAB = "labs/lab-resume.ipynb"

RESUME = "labs/lab-resume.ipynb"

EXERCISES: list[Exercise] = [
    Exercise(RESUME, "make_checkpoint", right=(
        R("the optimizer's and scheduler's states loaded before the model's weights", """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict(),
            "scheduler": parts.scheduler.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.scheduler.load_state_dict(ckpt["scheduler"])
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    parts.model.load_state_dict(ckpt["model"])
    return parts, ckpt["step"]"""),
        R("a loop over the parts that have a state_dict", """
def make_checkpoint(parts, step):
    ckpt = {"step": step}
    for name in ("model", "optimizer", "scheduler"):
        ckpt[name] = getattr(parts, name).state_dict()
    return ckpt


def resume(ckpt):
    parts = make_parts()
    for name in ("model", "optimizer", "scheduler"):
        getattr(parts, name).load_state_dict(ckpt[name])
    return parts, ckpt["step"]"""),
        R("the scheduler replayed step by step, then the optimizer's state loaded", """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict()}


def resume(ckpt):
    parts = make_parts()
    for _ in range(ckpt["step"]):
        parts.scheduler.step()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    return parts, ckpt["step"]"""),
        R("deep copies, the training state nested under one key", """
def make_checkpoint(parts, step):
    return copy.deepcopy({"step": step, "weights": parts.model.state_dict(),
                          "training": {"opt": parts.optimizer.state_dict(),
                                       "sched": parts.scheduler.state_dict()}})


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["weights"])
    parts.optimizer.load_state_dict(ckpt["training"]["opt"])
    parts.scheduler.load_state_dict(ckpt["training"]["sched"])
    return parts, int(ckpt["step"])"""),
    ), wrong=(
        W("resume returns the example's step", """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict(),
            "scheduler": parts.scheduler.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    parts.scheduler.load_state_dict(ckpt["scheduler"])
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
          'Your checkpoint holds an object'),
        W('the scheduler object saved instead of its state_dict', """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict(), "scheduler": parts.scheduler}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    parts.scheduler = ckpt["scheduler"]
    return parts, ckpt["step"]""",
          'Your checkpoint holds an object'),
        W('the saved state loaded into an optimizer over another model', """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict(),
            "scheduler": parts.scheduler.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    parts.scheduler.load_state_dict(ckpt["scheduler"])
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
        # Issue 27's scheduler: the learning rate jumps back, or comes back a step off.
        W("the optimizer restored, the scheduler left fresh (the loss spike goes away)", """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    return parts, ckpt["step"]""",
          "the learning rate jumps back to the top of the schedule", hides=True),
        W("the scheduler rebuilt with last_epoch=step (it steps once when built)", """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    parts.scheduler = torch.optim.lr_scheduler.LambdaLR(
        parts.optimizer, cosine_decay, last_epoch=ckpt["step"])
    return parts, ckpt["step"]""",
          "the schedule runs one step ahead"),
        W("the scheduler's state loaded, then stepped once 'to move on'", """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict(),
            "scheduler": parts.scheduler.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    parts.scheduler.load_state_dict(ckpt["scheduler"])
    parts.scheduler.step()  # on to the next step
    return parts, ckpt["step"]""",
          "the schedule runs one step ahead"),
        W("the scheduler replayed by the step count on top of the restored rate", """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    for _ in range(ckpt["step"]):
        parts.scheduler.step()
    return parts, ckpt["step"]""",
          "applies its decays twice", hides=True),
        W("the lab's schedule rebuilt, its function shifted by the step", """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    parts.scheduler = torch.optim.lr_scheduler.LambdaLR(
        parts.optimizer, lambda s: cosine_decay(s + ckpt["step"]))
    return parts, ckpt["step"]""",
          "resume() uses its own LambdaLR", hides=True),
        W("a new Adam built in resume (lr 3e-3 typed in); the scheduler drives the old one",
          """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict(),
            "scheduler": parts.scheduler.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer = torch.optim.Adam(parts.model.parameters(), lr=3e-3)
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    parts.scheduler.load_state_dict(ckpt["scheduler"])
    return parts, ckpt["step"]""",
          "its scheduler still drives the old one"),
        W("the scheduler rebuilt from scratch after the optimizer's state was loaded", """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict(),
            "scheduler": parts.scheduler.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    parts.scheduler = torch.optim.lr_scheduler.LambdaLR(parts.optimizer, cosine_decay)
    parts.scheduler.load_state_dict(ckpt["scheduler"])
    return parts, ckpt["step"]""",
          "Only the first step after the resume trains at another rate"),
        W("the lab's Adam and LambdaLR rebuilt in resume, their states loaded", """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict(),
            "scheduler": parts.scheduler.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer = torch.optim.Adam(parts.model.parameters(), lr=3e-3)
    parts.scheduler = torch.optim.lr_scheduler.LambdaLR(parts.optimizer, cosine_decay)
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    parts.scheduler.load_state_dict(ckpt["scheduler"])
    return parts, ckpt["step"]""",
          "resume() uses its own Adam", hides=True),
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
        R("torch.get_rng_state and the sampler's state_dict, no ice_lab", """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["torch_rng"] = torch.get_rng_state()
    ckpt["sampler"] = parts.sampler.state_dict()
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    torch.set_rng_state(ckpt["torch_rng"])
    parts.sampler.load_state_dict(ckpt["sampler"])
    return parts, step"""),
        R("the loader's generator saved too (it matters once workers augment)", """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["rng"] = capture_rng(parts.sampler, generator=parts.loader.generator)
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    restore_rng(ckpt["rng"], parts.sampler, generator=parts.loader.generator)
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
          'it was put back too early'),
        W('random state without the sampler', """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["rng"] = capture_rng()
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    restore_rng(ckpt["rng"])
    return parts, step""",
          'starts the first epoch again'),
        W('the sampler without the random state', """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["sampler"] = parts.sampler.state_dict()
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    parts.sampler.load_state_dict(ckpt["sampler"])
    return parts, step""",
          'does not hold where that generator stood', hides=True),
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
          'does not hold where that generator stood'),
        # Issue 27: the sampler's place recomputed, or half restored; the wrong generator.
        W("the sampler's place recomputed: 20 steps an epoch, 64 samples a step", """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["torch_rng"] = torch.get_rng_state()
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    torch.set_rng_state(ckpt["torch_rng"])
    parts.sampler.epoch, parts.sampler.position = step // 20, step % 20 * 64
    return parts, step""",
          "the sampler's place was rebuilt (recomputed from the step", hides=True),
        W("the sampler's place recomputed from the step with len(loader)", """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["rng"] = capture_rng()
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    restore_rng(ckpt["rng"])
    epoch, batches = divmod(step, len(parts.loader))
    parts.sampler.epoch = epoch
    parts.sampler.position = batches * parts.loader.batch_size
    return parts, step""",
          "the sampler's place was rebuilt (recomputed from the step", hides=True),
        W("the seed saved, the place computed from the example's 20 steps of 64", """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["rng"] = capture_rng()
    ckpt["seed"] = parts.sampler.seed
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    restore_rng(ckpt["rng"])
    parts.sampler.load_state_dict(
        {"seed": ckpt["seed"], "epoch": step // 20, "position": step % 20 * 64})
    return parts, step""",
          "cannot be computed from the step count"),
        W("the sampler's position restored, not its epoch", """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["rng"] = capture_rng()
    ckpt["position"] = parts.sampler.position
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    restore_rng(ckpt["rng"])
    parts.sampler.position = ckpt["position"]
    return parts, step""",
          "the right position of the wrong epoch"),
        W("the DataLoader's generator saved instead of torch's global one", """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["generator"] = parts.loader.generator.get_state()
    ckpt["sampler"] = parts.sampler.state_dict()
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    parts.loader.generator.set_state(ckpt["generator"])
    parts.sampler.load_state_dict(ckpt["sampler"])
    return parts, step""",
          "Your checkpoint holds the DataLoader's generator"),
        W("the sampler object itself in the checkpoint", """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["rng"] = capture_rng()
    ckpt["sampler"] = parts.sampler
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    restore_rng(ckpt["rng"])
    parts.sampler.load_state_dict(ckpt["sampler"].state_dict())
    return parts, step""",
          "Your checkpoint holds an object"),
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
          "the file's tensors are tagged cuda:0"),
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
        # Issue 34: a strict load was asked for; a lenient one loads what does not fit.
        W("the prefix stripped, then strict=False 'just in case'", """
state = torch.load(path, map_location="cpu")
state = {k.removeprefix("module."): v for k, v in state.items()}
model.load_state_dict(state, strict=False)
return model""",
          "The exercise asks for a strict load", hides=True),
        W("the prefix stripped, the keys the model lacks dropped without a word", """
state = torch.load(path, map_location="cpu")
known = model.state_dict().keys()
state = {k.removeprefix("module."): v for k, v in state.items()}
model.load_state_dict({k: v for k, v in state.items() if k in known})
return model""",
          "The exercise asks for a strict load", hides=True),
        W("the missing keys filled from the model's own weights", """
state = torch.load(path, map_location="cpu")
state = {k.removeprefix("module."): v for k, v in state.items()}
model.load_state_dict({**model.state_dict(), **state}, strict=False)
return model""",
          "The exercise asks for a strict load", hides=True),
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
          "before the temporary file's bytes were fsync-ed", hides=True),
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
    Exercise(RESUME, "colleague_trainer", right=(
        R("resume's check run in eval mode (a copy of resume)", """
class Repaired(Trainer):
    @classmethod
    def resume(cls, state):
        trainer = cls(state["seed"])
        trainer.steps = state["steps"]
        trainer.optimizer.load_state_dict(state["optimizer"])
        trainer.scheduler.load_state_dict(state["scheduler"])
        restore_rng(state["rng"], trainer.sampler)
        trainer.model.load_state_dict(state["model"])
        trainer.model.eval()  # no dropout: nothing drawn
        with torch.no_grad():
            finite = trainer.model(X_train[:8]).isfinite().all()
        if not finite:
            raise ValueError("the checkpoint's weights give NaN or inf")
        return trainer

return Repaired"""),
        R("torch's generator set back after super().resume", """
class Repaired(Trainer):
    @classmethod
    def resume(cls, state):
        trainer = super().resume(state)
        torch.set_rng_state(state["rng"]["torch"])
        return trainer

return Repaired"""),
        R("the random state restored after the check (a copy of resume, lines swapped)", """
class Repaired(Trainer):
    @classmethod
    def resume(cls, state):
        trainer = cls(state["seed"])
        trainer.steps = state["steps"]
        trainer.optimizer.load_state_dict(state["optimizer"])
        trainer.scheduler.load_state_dict(state["scheduler"])
        trainer.model.load_state_dict(state["model"])
        with torch.no_grad():
            finite = trainer.model(X_train[:8]).isfinite().all()
        if not finite:
            raise ValueError("the checkpoint's weights give NaN or inf")
        restore_rng(state["rng"], trainer.sampler)
        return trainer

return Repaired"""),
    ), wrong=(
        W("the colleague's trainer as it is", "return Trainer", "other dropout masks"),
        W("torch reseeded after the resume, from the seed and the step", """
class Repaired(Trainer):
    @classmethod
    def resume(cls, state):
        trainer = super().resume(state)
        torch.manual_seed(state["seed"] + state["steps"])
        return trainer

return Repaired""",
          "other dropout masks", hides=True),
        W("dropout switched off: resumed runs agree, the colleague's numbers are gone", """
class Repaired(Trainer):
    def __init__(self, seed=0):
        super().__init__(seed)
        self.model[3].p = 0.0

return Repaired""",
          "no longer computes what the colleague's computed", hides=True),
        W("the random state put back before super().resume", """
class Repaired(Trainer):
    @classmethod
    def resume(cls, state):
        restore_rng(state["rng"])
        return super().resume(state)

return Repaired""",
          "other dropout masks"),
        W("resume's check under torch.inference_mode (dropout still draws)", """
class Repaired(Trainer):
    @classmethod
    def resume(cls, state):
        trainer = cls(state["seed"])
        trainer.steps = state["steps"]
        trainer.optimizer.load_state_dict(state["optimizer"])
        trainer.scheduler.load_state_dict(state["scheduler"])
        restore_rng(state["rng"], trainer.sampler)
        trainer.model.load_state_dict(state["model"])
        with torch.inference_mode():
            finite = trainer.model(X_train[:8]).isfinite().all()
        if not finite:
            raise ValueError("the checkpoint's weights give NaN or inf")
        return trainer

return Repaired""",
          "other dropout masks"),
        W("the saved random state put back at the start of every fit", """
class Repaired(Trainer):
    @classmethod
    def resume(cls, state):
        trainer = super().resume(state)
        trainer.saved_rng = state["rng"]
        return trainer

    def fit(self, until):
        if getattr(self, "saved_rng", None):
            restore_rng(self.saved_rng, self.sampler)
        super().fit(until)

return Repaired""",
          "a second fit call"),
    )),
]
