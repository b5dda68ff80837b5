"""A check runs the learner's function alone: no thread or process started in an earlier cell may do its work,
and no slip message on a number worked by hand gives the arithmetic that leads to the answer."""

from __future__ import annotations

import gc
import importlib
import os
import pkgutil
import re
import subprocess
import sys
import threading
import types

import numpy as np
import pytest

import transformer_math.labs as labs
from transformer_math.labs.hand import HandNumber
from transformer_math.labs.softmax import check as softmax_check

LINUX = os.path.exists("/proc/self/task")

# The notebook's cells, run in a namespace of their own as a kernel runs them in __main__.
WORKER_CELL = """
import queue, threading
import numpy as np
from transformer_math.softmax import softmax as _library
_jobs, _done = queue.Queue(), queue.Queue()
def _serve():
    for job in iter(_jobs.get, None):
        try:
            _done.put(_library(job))
        except Exception as error:
            _done.put(error)
_worker = threading.Thread(target=_serve, daemon=True)
_worker.start()
def softmax(x):
    _jobs.put(x)
    result = _done.get(timeout=10)
    if isinstance(result, Exception):
        raise result
    return result
"""

OWN_SOFTMAX = """
import numpy as np
def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
"""


def notebook(source: str) -> dict:
    namespace = {"__name__": "__main__"}
    exec(compile(source, "<cell>", "exec"), namespace)  # noqa: S102 - a notebook's cell
    return namespace


def verdict(capsys, function) -> str:
    softmax_check("softmax", function)
    return capsys.readouterr().out


def worker_verdict(capsys, cell: str, wait: float) -> str:
    """The check's verdict on a notebook whose earlier cell started ``_worker`` on ``_jobs``, stopped after."""
    cells = notebook(cell)
    try:
        return verdict(capsys, cells["softmax"])
    finally:
        cells["_jobs"].put(None)
        cells["_worker"].join(wait)


def test_a_worker_thread_started_in_an_earlier_cell_is_refused(capsys):
    out = worker_verdict(capsys, WORKER_CELL, 5)
    assert out.startswith("Wrong: softmax - case 1 of")
    assert "a thread started before the check is running your code (" in out
    assert "in _serve" in out and "stop the thread and run the check again" in out


# A worker whose stack holds only the standard library and C code (no frame of the notebook's): it works for the
# function, burning CPU in another thread while the function waits for it.
STDLIB_WORKER_CELL = """
import collections, hashlib, itertools, queue, threading
import numpy as np
_jobs, _done = queue.Queue(), queue.Queue()
_worker = threading.Thread(
    target=collections.deque,
    args=(map(_done.put, itertools.starmap(hashlib.pbkdf2_hmac, iter(_jobs.get, None))), 0),
    daemon=True,
)
_worker.start()
def softmax(x):
    _jobs.put(("sha256", b"work", b"salt", 400000))
    _done.get(timeout=30)
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
"""


@pytest.mark.skipif(not LINUX, reason="Linux tells each thread's CPU time in /proc")
def test_a_thread_that_works_while_the_check_runs_is_refused_though_it_runs_no_notebook_code(capsys):
    out = worker_verdict(capsys, STDLIB_WORKER_CELL, 30)
    assert out.startswith("Wrong: softmax - case 1 of"), out
    assert "another thread ran while the check did (" in out and "a check runs your function alone" in out


def test_threads_that_run_no_code_of_the_notebook_leave_the_check_alone(capsys):
    quiet = threading.Event()
    other = threading.Thread(target=quiet.wait, daemon=True)  # as Jupyter's and pytest's own threads
    other.start()
    try:
        out = verdict(capsys, notebook(OWN_SOFTMAX)["softmax"])
    finally:
        quiet.set()
        other.join(5)
    assert out.startswith("Correct: softmax")


@pytest.mark.skipif(not LINUX, reason="Linux tells a process's children in /proc")
def test_a_process_started_by_the_notebook_and_still_running_is_refused(capsys):
    cells = notebook(
        OWN_SOFTMAX
        + "import subprocess, sys\n"
        + "_child = subprocess.Popen([sys.executable, '-c', 'import sys; sys.stdin.read()'], stdin=subprocess.PIPE)\n"
    )
    try:
        out = verdict(capsys, cells["softmax"])
    finally:
        cells["_child"].stdin.close()
        cells["_child"].wait(10)
    assert "a process started before the check is still running (pid " in out
    assert out.startswith("Wrong: softmax")
    assert verdict(capsys, cells["softmax"]).startswith("Correct: softmax")  # once it has ended


def test_a_process_of_another_thread_not_the_notebooks_leaves_the_check_alone(capsys):
    started: list = []
    command = [sys.executable, "-c", "import sys; sys.stdin.read()"]
    runner = threading.Thread(target=lambda: started.append(subprocess.Popen(command, stdin=subprocess.PIPE)))
    runner.start()  # as pytest's background jobs and a kernel manager start theirs
    runner.join()
    try:
        out = verdict(capsys, notebook(OWN_SOFTMAX)["softmax"])
    finally:
        started[0].stdin.close()
        started[0].wait(10)
    assert out.startswith("Correct: softmax")


def test_a_finalizer_the_garbage_collector_runs_during_the_check_is_not_the_learners_call(capsys):
    """A Popen of an earlier piece of code, unreachable in a cycle, is finalized whenever the collector runs: in the
    middle of the learner's function too. Its ``__del__`` is no call of the learner's code."""
    cells = notebook(OWN_SOFTMAX + "import gc\ndef collecting(x):\n    gc.collect()\n    return softmax(x)\n")
    gc.disable()  # the cycle waits for the learner's gc.collect(), as it would for the collector's own timing
    try:
        finished = subprocess.Popen([sys.executable, "-c", "pass"])
        finished.wait(10)
        cycle = [finished]
        cycle.append(cycle)
        del finished, cycle
        out = verdict(capsys, cells["collecting"])
    finally:
        gc.enable()
    assert out.startswith("Correct: softmax"), out


# The library's code run under a finalizer's name, in several labs: (lab module, check, the library's module and
# function, the learner's function calling it as ``_renamed``).
RENAMED = {
    "softmax": (
        "softmax",
        "softmax",
        "transformer_math.softmax",
        "softmax",
        "def softmax(x):\n    return _renamed(x)\n",
    ),
    "ce_backward": (
        "backward_passes",
        "ce_backward",
        "transformer_math.model",
        "cross_entropy_backward",
        "def ce_backward(Z, y):\n    return _renamed(np.asarray(Z, dtype=float), np.asarray(y))\n",
    ),
    "layer_norm_backward": (
        "backward_passes",
        "layer_norm_backward",
        "transformer_math.block",
        "layer_norm_backward",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n"
        "    return _renamed(np.asarray(dy, dtype=float), np.asarray(x, dtype=float), np.asarray(gamma), eps)\n",
    ),
    "attention": (
        "attention",
        "attention",
        "transformer_math.attention",
        "scaled_dot_product_attention",
        "def attention(Q, K, V, mask=None):\n"
        "    m = None if mask is None else np.asarray(mask, dtype=bool)\n"
        "    return _renamed(np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float), m)[0]\n",
    ),
}


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the arrays' finalizer, later
@pytest.mark.parametrize("route", ["renamed", "the __del__ of an array's class"])
@pytest.mark.parametrize("exercise", RENAMED)
def test_the_librarys_code_under_a_finalizers_name_is_still_the_librarys(capsys, exercise, route):
    """Only a genuine finalizer, the standard library's, is nobody's call: the library's code renamed ``__del__``
    (and even made the ``__del__`` of a class of the learner's) is refused like the library's function."""
    lab, name, module, function, source = RENAMED[exercise]
    original = getattr(importlib.import_module(module), function)
    code = original.__code__.replace(co_name="__del__")
    renamed = types.FunctionType(code, original.__globals__, "__del__", original.__defaults__, original.__closure__)
    renamed.__kwdefaults__ = original.__kwdefaults__
    cells = notebook("import numpy as np\n" + source)
    if route == "renamed":
        cells["_renamed"] = renamed
    else:  # its first argument an array whose class's __del__ is the renamed code: a finalizer by its look
        owner = type("Finalized", (np.ndarray,), {"__del__": renamed})
        cells["_renamed"] = lambda first, *rest: renamed(np.asarray(first).view(owner), *rest)
    importlib.import_module(f"transformer_math.labs.{lab}").check(name, cells[name])
    out = capsys.readouterr().out
    assert out.startswith(f"Wrong: {name} - case 1 of"), out
    assert f"it calls {module}.{function}" in out, out


@pytest.mark.parametrize("held", ["_to", "(_to, 1)", "{'to': _to}"])
def test_a_pipe_in_the_functions_globals_is_refused(capsys, held):
    reading, writing = os.pipe()
    cells = notebook(
        OWN_SOFTMAX
        + f"import os\n_to = os.fdopen({writing}, 'wb')\n_held = {held}\n"
        + "def handed(x):\n    _held\n    return softmax(x)\n"
    )
    try:
        out = verdict(capsys, cells["handed"])
    finally:
        cells["_to"].close()
        os.close(reading)
    assert out.startswith("Wrong: softmax")
    assert "it uses _held (a pipe or socket to another process)" in out


def hand_number_slips() -> list[tuple[str, str, str]]:
    found = []
    for module in pkgutil.iter_modules(labs.__path__):
        checks = getattr(importlib.import_module(f"{labs.__name__}.{module.name}"), "check", None)
        for name, one in getattr(checks, "checks", {}).items():
            if isinstance(one, HandNumber):
                found += [(module.name, name, slip) for slip in one.slips.values()]
    return found


def test_a_slip_message_diagnoses_without_the_arithmetic_to_the_answer():
    slips = hand_number_slips()
    assert len(slips) >= 20
    arithmetic = re.compile(r"\d\.\d|=|\bdivided by\b|\btimes it\b|\bmean over\b")
    assert [slip for slip in slips if arithmetic.search(slip[2])] == []


def test_a_refused_ufunc_reached_through_getattr_is_refused_when_called():
    import numpy as np

    from transformer_math.labs.guard import WriteItYourself, guarded, names_refused

    cosh = np.cosh
    cells = notebook("import numpy as np\ndef rule(z):\n    return 1 / getattr(np, 'co' + 'sh')(z) ** 2\n")
    with guarded() as seen, names_refused(("cosh",), "derive it"):
        with pytest.raises(WriteItYourself, match=r"it calls np\.cosh: derive it"):
            cells["rule"](0.5)
    assert seen.refused == ["np.cosh"]
    assert np.cosh is cosh


def test_a_refused_ufunc_bound_before_the_rule_runs_is_refused_in_its_closure():
    from transformer_math.labs.guard import WriteItYourself, guarded, names_refused

    cells = notebook(
        "import numpy as np\ndef forward():\n    f = getattr(np, 'co' + 'sh')\n"
        "    def backward(z):\n        return 1 / f(z) ** 2\n    return backward\n"
    )
    backward = cells["forward"]()  # the forward pass runs before the rule, with nothing refused
    with guarded() as seen, names_refused(("cosh",), "derive it"):
        with pytest.raises(WriteItYourself, match=r"it uses f \(cosh\) in backward: derive it"):
            backward(0.5)
    assert seen.refused == ["f (cosh)"]
