"""What a check is handed: the learner's own code, never the library passed in its place (directly, wrapped,
aliased, or compiled by exec under another file's name), and the multiplications a loops answer counts."""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import re
import sys
import types

import numpy as np
import pytest

import transformer_math.model as library_model
import transformer_math.softmax as library_softmax
from transformer_math.autograd import Value as LibraryValue
from transformer_math.labs import autodiff_mlp, backward_passes, matrix_operations, softmax, your_own_gpt
from transformer_math.labs.authorship import Learners, _kind
from transformer_math.labs.cases import describe_value
from transformer_math.labs.fingerprint import copied as copied_anywhere
from transformer_math.labs.fingerprint import copy_of
from transformer_math.labs.guard import WriteItYourself, guarded
from transformer_math.labs.measured import measuring
from transformer_math.labs.submitted import copy_in, foreign

LIBRARY = library_softmax.softmax
STDLIB_FILE = functools.__file__


def learners_namespace(**names) -> dict:
    """A namespace like a notebook's: ``__name__`` is ``__main__``."""
    return {"__name__": "__main__", "np": np, **names}


def compiled(source: str, filename: str, namespace: dict, name: str):
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def wrapper_claiming_the_library(x):
    e = np.exp(np.asarray(x, dtype=float))
    return e / e.sum(axis=-1, keepdims=True)


ROUTES = {
    "the library's function itself": lambda: LIBRARY,
    "functools.partial of it": lambda: functools.partial(LIBRARY, axis=-1),
    "a function whose __wrapped__ is it": lambda: functools.update_wrapper(wrapper_claiming_the_library, LIBRARY),
    "a lambda eval made with globals of its own": lambda: eval(  # noqa: S307 - the route under test
        "lambda x: lib(x)", {"__name__": "helper", "lib": LIBRARY}
    ),
    "exec under the standard library's file name, the notebook's globals": lambda: compiled(
        "def softmax(x):\n    return lib(x)\n", STDLIB_FILE, learners_namespace(lib=LIBRARY), "softmax"
    ),
    "exec under the standard library's file name, globals named functools": lambda: compiled(
        "def softmax(x):\n    return lib(x)\n", STDLIB_FILE, {"__name__": "functools", "lib": LIBRARY}, "softmax"
    ),
}


@pytest.mark.parametrize("route", ROUTES, ids=list(ROUTES))
def test_the_library_handed_to_a_check_in_place_of_the_learners_function_is_wrong(route, capsys):
    softmax.check("softmax", ROUTES[route]())
    printed = capsys.readouterr().out
    assert printed.startswith("Wrong: softmax"), printed
    assert "transformer_math.softmax.softmax" in printed


def test_the_checks_own_call_of_the_learners_function_counts_as_the_learners_call():
    with guarded() as seen:
        with pytest.raises(WriteItYourself):
            Learners(LIBRARY)(np.array([1.0, 2.0]))
    assert seen.refused == ["transformer_math.softmax.softmax"]


def test_code_is_the_learners_by_its_globals_and_the_standard_librarys_only_from_its_own_file():
    def kind(function):
        return _kind(function.__code__, function.__globals__)

    assert kind(functools.update_wrapper) == "neutral"  # the real file, imported
    assert kind(np.testing.assert_allclose) == "neutral"
    assert kind(LIBRARY) == "library"
    assert kind(wrapper_claiming_the_library) == "learner"  # a test file stands for a file of the learner's
    fake = compiled("def reduce(f, xs):\n    return xs\n", STDLIB_FILE, learners_namespace(), "reduce")
    assert kind(fake) == "learner"
    named = compiled("def reduce(f, xs):\n    return xs\n", STDLIB_FILE, {"__name__": "functools"}, "reduce")
    assert kind(named) == "learner"
    disguised = types.FunctionType(LIBRARY.__code__, learners_namespace())
    assert kind(disguised) == "learner"
    library_named = eval("lambda x: x", {"__name__": "transformer_math.softmax"})  # noqa: S307
    assert kind(library_named) == "learner"


def test_code_under_a_pseudo_file_name_is_neutral_only_in_a_module_imported_from_its_file_or_frozen(monkeypatch):
    def kind(function):
        return _kind(function.__code__, function.__globals__)

    made = types.ModuleType("csteps")  # registered by hand, never imported
    monkeypatch.setitem(sys.modules, "csteps", made)
    exec(compile("def measure(x):\n    return x * 1j\n", "<csteps>", "exec"), made.__dict__)  # noqa: S102
    assert kind(made.measure) == "learner"
    made.__file__ = os.__file__  # another module's file: not this module's
    assert kind(made.measure) == "learner"
    exec(compile("def made_here(x):\n    return x\n", "<string>", "exec"), functools.__dict__)  # noqa: S102
    try:  # exec inside a module imported from its file (as a dataclass's __init__ is made)
        assert kind(functools.made_here) == "neutral"
    finally:
        del functools.made_here
    frozen = importlib._bootstrap._find_spec  # the interpreter's frozen importlib
    assert frozen.__code__.co_filename.startswith("<frozen") and kind(frozen) == "neutral"


class OnTheLibrarysValue(LibraryValue):
    pass


class WithTheLibrarysRule:
    def __init__(self, data, parents=()):
        self.data, self.grad, self.parents = data, 0.0, parents

    __mul__ = LibraryValue.__mul__


def test_a_class_built_on_the_librarys_value_or_holding_its_rules_is_wrong(capsys):
    assert foreign(OnTheLibrarysValue) == "transformer_math.autograd.Value"
    assert foreign(WithTheLibrarysRule) == "transformer_math.autograd.Value.__mul__"
    assert foreign(LibraryValue(1.0).tanh) == "transformer_math.autograd.Value.tanh"  # a bound method
    assert foreign(wrapper_claiming_the_library.__call__) is None
    autodiff_mlp.check("mul", OnTheLibrarysValue)
    assert capsys.readouterr().out.startswith("Wrong: mul - it uses transformer_math.autograd.Value")


def test_the_learners_helper_found_by_name_is_checked_as_the_learners_too(capsys):
    namespace = learners_namespace(gpt_forward=library_model.forward, model=library_model)
    gpt_backward = compiled(
        "def gpt_backward(params, cache, dlogits):\n    return model.backward(params, cache, dlogits)\n",
        "<cell>",
        namespace,
        "gpt_backward",
    )
    your_own_gpt.check("gpt_backward", gpt_backward)
    printed = capsys.readouterr().out
    assert printed.startswith("Wrong: gpt_backward"), printed
    assert "its gpt_forward uses transformer_math.model.forward" in printed


def test_the_checks_reference_for_attention_backward_is_not_there_to_import():
    assert "attention_backward" not in backward_passes.__all__
    assert not hasattr(backward_passes, "attention_backward")


def padded(X, Y):
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    one = 1.0
    for _ in range(X.shape[0] * Y.shape[1]):
        one * one  # noqa: B018 - multiplications that multiply nothing of the inputs
    return (X[:, :, None] * Y[None, :, :]).sum(axis=1)


def loops(X, Y):
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    out = np.zeros((X.shape[0], Y.shape[1]))
    for i in range(X.shape[0]):
        for j in range(Y.shape[1]):
            a, b = X[i], Y[:, j]
            out[i, j] = sum(x * y for x, y in zip(a, b))
    return out


def test_a_vectorised_product_padded_with_the_same_multiplication_is_wrong_and_loops_are_right(capsys):
    matrix_operations.check("matmul", padded)
    out = capsys.readouterr().out
    assert out.startswith("Wrong: matmul") and "it multiplied arrays into a result of shape (2, 2, 2)" in out
    matrix_operations.check("matmul", loops)
    assert capsys.readouterr().out.startswith("Correct: matmul")


def rank_one_updates(X, Y):
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    out = np.zeros((X.shape[0], Y.shape[1]))
    for k in range(X.shape[1]):
        out += X[:, k : k + 1] * Y[k : k + 1, :]  # a whole outer product each step
    for _ in range(out.size):
        _ = X[0, 0] * Y[0, 0]  # decoys for the count
    return out


def repeated_and_tiled(X, Y):
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    n, p = X.shape[0], Y.shape[1]
    return (np.repeat(X, p, axis=0) * np.tile(Y.T, (n, 1))).sum(axis=1).reshape(n, p)


def inner_sums(X, Y):
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    out = np.zeros((X.shape[0], Y.shape[1]))
    for i in range(X.shape[0]):
        for j in range(Y.shape[1]):
            out[i, j] = np.sum(X[i] * Y[:, j])
    return out


def test_a_2d_outer_product_of_the_arrays_is_vectorised_and_a_row_times_a_column_is_not(capsys):
    for vectorised in (rank_one_updates, repeated_and_tiled):
        matrix_operations.check("matmul", vectorised)
        out = capsys.readouterr().out
        assert out.startswith("Wrong: matmul") and "every row with every column at once" in out, out
    matrix_operations.check("matmul", inner_sums)
    assert capsys.readouterr().out.startswith("Correct: matmul")


def test_a_scalar_near_a_round_number_is_shown_with_the_digits_that_tell_it_apart():
    assert describe_value("beta1", 1 - 1e-9) == "beta1 = 0.999999999"
    assert describe_value("beta1", 0.9) == "beta1 = 0.9"
    assert describe_value("lr", 0.0123456) == "lr = 0.01235"
    assert describe_value("x", (1002.57, 1000.0, 1001.5)) == "x = [1002.57, 1000.0, 1001.5]"
    assert describe_value("t", 1234.0) == "t = 1234"


def test_an_integer_wider_than_64_bits_is_extra_precision():
    assert measuring([1 << 64]) is not None
    assert measuring([(1 << 63) - 1, 10**18, -(1 << 63)]) is None


def copied(module, name: str | None = None, **names) -> dict:
    """The library's ``module`` (or its function ``name``) exec'd from its source into a notebook's namespace."""
    namespace = learners_namespace(**names)
    source = inspect.getsource(getattr(module, name) if name else module)
    exec(compile(source, "mine.py", "exec"), namespace)  # noqa: S102 - the route under test
    return namespace


def test_the_librarys_source_exec_d_into_the_notebook_is_refused_before_the_run_and_while_it_runs(capsys):
    namespace = copied(library_softmax)
    mine = compiled("def mine(x):\n    return softmax(np.asarray(x, dtype=float))\n", "<cell>", namespace, "mine")
    assert copy_of(namespace["softmax"].__code__) == "transformer_math.softmax.softmax"
    assert copy_in(mine) == "it runs a copy of the library's transformer_math.softmax.softmax: write this one yourself"
    softmax.check("softmax", mine)
    assert capsys.readouterr().out.startswith("Wrong: softmax - it runs a copy of the library's")
    # reached through a dictionary, which no inspection before the run follows: the guard refuses it as it starts
    hidden = compiled(
        "def hidden(x):\n    return table['f'](x)\n",
        "<cell>",
        learners_namespace(table={"f": namespace["softmax"]}),
        "hidden",
    )
    assert copy_in(hidden) is None
    with guarded() as seen, pytest.raises(WriteItYourself, match="runs a copy of the library's"):
        Learners(hidden)(np.array([1.0, 2.0]))
    assert seen.refused == ["transformer_math.softmax.softmax"]


def test_the_checks_own_references_are_fingerprinted_too():
    namespace = copied(backward_passes, "_attention_backward")
    assert copy_of(namespace["_attention_backward"].__code__) == (
        "transformer_math.labs.backward_passes._attention_backward"
    )


def test_a_copy_without_its_docstring_or_with_its_names_renamed_is_still_a_copy():
    source = inspect.getsource(backward_passes._attention_backward)
    stripped, deleted = re.subn(r'r?"""[\s\S]*?"""', "pass", source, count=1)
    assert deleted == 1
    renamed = stripped.replace("_attention_backward", "mine").replace("dO", "grad_out").replace("np.", "numpy.")
    for text, name in ((stripped, "_attention_backward"), (renamed, "mine")):
        code = compiled(text, "<cell>", learners_namespace(numpy=np), name).__code__
        assert copy_of(code) == "transformer_math.labs.backward_passes._attention_backward", text
    # a short reference's very lines under the exercise's name are an honest answer (the fold's solution)
    shift = "def inputs_and_targets(seqs):\n    seqs = np.asarray(seqs)\n    return seqs[:, :-1], seqs[:, 1:]\n"
    assert copy_of(compiled(shift, "<cell>", learners_namespace(), "inputs_and_targets").__code__) is None


def test_a_tiny_body_or_a_comprehension_that_matches_the_librarys_is_never_refused():
    namespace = copied(library_softmax, "summing")  # a one-line helper, copied word for word
    assert copy_of(namespace["summing"].__code__) is None
    genexpr = compiled(
        "def mine(a, b):\n    a, b = (np.asarray(v, dtype=float) for v in (a, b))\n    return a\n", "<cell>", {}, "mine"
    )
    assert copied_anywhere(genexpr.__code__) is None
    mean = compiled("def mean(x):\n    return x.mean(axis=-1)\n", "<cell>", learners_namespace(), "mean")
    assert copy_in(mean) is None
    assert copy_in(loops) is None  # honest code of some size


def edited(source: str, *edits: tuple[str, str]) -> str:
    """``source`` with a statement that does nothing put first in its body, then ``edits`` (old, new) made."""
    source = re.sub(r'("""\n)', r"\1    _unused = 0\n", source, count=1)
    for old, new in edits:
        assert old in source, old
        source = source.replace(old, new)
    return source


def test_a_copy_with_a_dead_line_a_keyword_dropped_or_np_renamed_is_still_a_copy():
    source = inspect.getsource(library_softmax._softmax)
    copies = {
        "a dead line, every name changed": edited(
            source, ("_softmax", "mine"), ("temperature", "tau"), ("lost", "gone"), ("out", "buf")
        ),
        "a keyword dropped": edited(source, ("_softmax", "mine"), (", dtype=summing(out.dtype)", "")),
        "np renamed": edited(source, ("_softmax", "mine"), ("np.", "numpy.")),
    }
    for about, text in copies.items():
        namespace = learners_namespace(numpy=np, summing=library_softmax.summing)
        assert copy_of(compiled(text, "<cell>", namespace, "mine").__code__) == "transformer_math.softmax._softmax", (
            about
        )
    reference = edited(inspect.getsource(backward_passes._attention_backward), ("_attention_backward", "mine"))
    code = compiled(reference, "<cell>", learners_namespace(), "mine").__code__
    assert copy_of(code) == "transformer_math.labs.backward_passes._attention_backward"
