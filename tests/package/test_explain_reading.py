"""ice_lab.explainer.reading: a paste is read the way a person reads it.

Box borders go and a row the box cut is joined again; full-width punctuation is plain;
wrapped lines are joined when nothing matched otherwise; a pasted traceback's frames are
evidence; a paraphrase is recognised by an entry's distinctive terms. The messages below
are the shapes the issue names (its own examples, retyped), one test per shape.
"""

from __future__ import annotations

import pytest

from ice_lab.explainer import explain
from ice_lab.explainer.entry import Clues
from ice_lab.explainer.reading import clean, frame_names, rejoined, unbox, words

BOX = "\u2502"


def _row(text: str, width: int = 60) -> str:
    return f"{BOX} {text:<{width}} {BOX}"


def test_unbox_removes_borders_and_joins_a_row_cut_at_the_border():
    body = "RuntimeError: Input type (torch.cuda.HalfTensor) and weight ty"
    box = "\n".join(["\u256d" + "\u2500" * 62 + "\u256e", f"{BOX} {body} {BOX}",
                     _row("pe (torch.cuda.FloatTensor) should be the same", len(body)),
                     "\u2570" + "\u2500" * 62 + "\u256f"])
    text = unbox(box)
    assert BOX not in text and "\u2500" not in text
    assert "and weight type (torch.cuda.FloatTensor) should be the same" in text


def test_unbox_keeps_a_padded_row_on_its_own_line_and_text_outside_boxes():
    text = unbox(_row("def forward(self, x):") + "\n" + _row("    return self.fc(x)") + "\nValueError: x")
    assert text.splitlines() == ["def forward(self, x):", "    return self.fc(x)", "ValueError: x"]
    assert unbox("no box | here") == "no box | here"


def test_clean_normalises_full_width_punctuation_and_retyped_namespaces():
    text = clean("Input type （BFLoat16） and bias type (c10--Half) Should be the same")
    assert "(BFLoat16)" in text and "(Half)" in text


def test_rejoined_joins_between_words_and_mid_word():
    (spaced, _), (tight, _) = rejoined("argument 'd\no_constant_folding' is\nunknown")
    assert spaced == "argument 'd o_constant_folding' is unknown"
    assert "do_constant_folding" in tight
    assert rejoined("one line") == []


def test_frame_names_read_cpython_jupyter_and_rich_tracebacks():
    cpython = ('  File "/x/torch/nn/functional.py", line 3150, in binary_cross_entropy\n'
               "    return torch._C._nn.binary_cross_entropy(input, target)\n")
    jupyter = "/usr/lib/python3/torch/nn/functional.py in cross_entropy(input, target)\n"
    rich = "/torch/utils/data/dataloader.py:1024\nin _try_get_data\n"
    assert frame_names(cpython + jupyter + rich) == ["binary_cross_entropy", "cross_entropy", "_try_get_data"]
    assert Clues("plain text").frame_names() == []


def test_words_are_lower_case_and_unordered():
    assert words("Inference Tensor, saved!") == {"inference", "tensor", "saved"}


@pytest.mark.parametrize("kind, message", [
    # a box traceback wrapped across bordered lines
    ("dtype_mismatch", "\n".join([_row("RuntimeError: Input type (torch.cuda.HalfTensor) and weight type"),
                                  _row("(torch.cuda.FloatTensor) should be the same")])),
    # full-width brackets and odd case in a post
    ("dtype_mismatch", "RuntimeError: Input type （BFLoat16） and bias type (Half) Should be the same"),
    # issue titles that paraphrase or misspell
    ("no_grad_fn", "Inference tensors can't be saved for backward"),
    ("no_grad_fn", "Inferences tensors cannot be saved"),
    # a shortened pid
    ("dataloader_worker_crash", "RuntimeError: DataLoader worker (pid ...) is killed by signal: Killed."),
    # machine-translated into Chinese: "Can't pickle local object"
    ("dataloader_pickling", "AttributeError: 无法腌制本地对象 'get_loader.<locals>.<lambda>'"),
    # an e-mail reply quoted with ">" and wrapped mid-message
    ("target_out_of_range", "> Traceback (most recent call last):\n>   File \"train.py\", line 9, in <module>\n"
                            "> IndexError: Target 7 is out\n> of bounds."),
    # older wordings still pasted
    ("shape_mismatch", "RuntimeError: invalid argument 0: Sizes of tensors must match except in dimension 0. "
                       "Got 80000 and 64000 in dimension 1 at /pytorch/aten/src/TH/generic/THTensor.cpp:711"),
    ("target_dtype", "RuntimeError: Expected object of scalar type Long but got scalar type Float for argument #2 '"),
    # wordings of newer releases and platforms
    ("conv_channels", "Given groups=1, weight of size [32, 3, 3, 3], expected input[8, 1, 28, 28] to have 3 "
                      "channels, but got 1 channel instead"),
    ("dataloader_pickling", "RuntimeError: Got pickle error when attempting to start a worker Process. This might "
                            "be because the worker Process arguments are not picklable."),
    ("dataloader_pickling", "NotImplementedError: ('{} cannot be pickled', '_SingleProcessDataLoaderIter')"),
    ("export_static_shape", "Not all values of batch = L['x'].size()[0] in the specified range batch <= 1024 are "
                            "valid because batch was inferred to be a constant (1)."),
    # the cause is in the traceback, not the last line
    ("target_dtype", '  File "/x/torch/nn/functional.py", line 3150, in binary_cross_entropy\n'
                     "    return torch._C._nn.binary_cross_entropy(input, target, weight, reduction_enum)\n"
                     "RuntimeError: result type Float can't be cast to the desired output type Long"),
])
def test_pastes_as_people_paste_them(kind, message):
    d = explain(message)
    assert d.kind == kind, d.why


def test_a_paraphrase_ranks_below_any_keyword_and_says_so():
    d = explain("PyTorch Error: Inference Tensor Saved for Backward")
    assert d.kind == "no_grad_fn" and "terms" in d.why
    # a real phrasing elsewhere in the text still decides
    assert explain("inference tensor saved\nCUDA out of memory. Tried to allocate 2.00 GiB").kind == "out_of_memory"


def test_the_same_words_from_an_in_place_op_stay_a_dtype_clash():
    text = ('  File "helper.py", line 256, in average\n    data.add_(update)\n'
            "RuntimeError: result type Float can't be cast to the desired output type Long")
    assert explain(text).kind == "dtype_mismatch"
