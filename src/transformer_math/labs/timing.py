r"""The work budget of a wide case: the learner's call against the reference, timed in the same process.

A gradient measured rather than derived -- finite differences of any order, a complex step, dual numbers --
needs one forward evaluation for each entry of the input, so that its work grows as the square of a row's width
($N V^2$ for the cross entropy's gradient, $N d^2$ for LayerNorm's), where the closed form's grows as the width
($N V$, $N d$). No tolerance can tell a careful measurement from the closed form, and a vectorised one runs few
Python steps; its time on a wide case tells them apart. ``TimeLimit`` is that case's option (``Case.time_limit``):
the runner times the reference on the case, best of ``REPEATS``, just before the learner's call, and refuses the
call if it took longer than ``max(FLOOR, TIMES`` × the reference's time``)`` (a limit's own floor, if higher).
It also refuses a call that held more than ``max(MEMORY_FLOOR, MEMORY_TIMES`` × the reference's peak``)`` of
memory at once (``tracemalloc``, which counts NumPy's arrays): a Jacobian per position, however fast it runs.

Times are CPU seconds of the process (``time.process_time``), not wall time: another program busy on the same
cores slows the two alike, and little. The floor is far above what any closed form takes (a millisecond or less, with the guard's
trace of the learner's lines), far below what a measurement takes (0.4 s or more on these cases).

Example
-------
>>> import numpy as np
>>> from transformer_math.labs.cases import Case
>>> from transformer_math.labs.timing import TimeLimit
>>> budget = TimeLimit("write it in O(d) work per token")
>>> budget.allowed(0.0002)            # the floor: a closed form takes well under it
0.05
>>> TimeLimit("derive it", floor=2.0).allowed(0.0002)  # a floor of its own, past a traced closed form's time
2.0
>>> print(budget.refusal(0.6, 0.0004, Case((np.zeros((4, 2048)),))))
on this 4×2048 case your function took 0.6 s of CPU where the closed form takes 0.4 ms: write it in O(d) work per token
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__: list[str] = []

# CPU seconds any call may take on a wide case: honest closed forms take 0.5 to 2 ms there, up to 5 ms with both
# cores busy (vectorised, einsum, float32, a Python loop over the rows, each traced line by line by the guard); a
# measurement 0.4 s or more, a d×d Jacobian per token 0.1 s or more.
FLOOR = 0.05
TIMES = 20  # the limit follows the reference (0.1 to 2 ms here) on a slower or busier machine
REPEATS = 3
# The memory a call on a wide case may hold at once: MEMORY_TIMES the reference's peak, and at least MEMORY_FLOOR
# bytes. A V×V or d×d Jacobian per position needs N·V² or N·d² entries (100 MB and more on these cases), where the
# closed forms hold a few arrays of N·V entries, a V×V one-hot table at most (8 MB): a refusal that does not depend
# on the machine's speed, where the time of a vectorised Jacobian can sit near the floor.
MEMORY_TIMES = 4
MEMORY_FLOOR = 16 * 2**20


class Peak:
    """The most memory (NumPy's arrays included) held at once between ``start`` and ``stop``, by ``tracemalloc``:
    started for the call and stopped after, or, if something else traces already, its peak reset."""

    def __init__(self) -> None:
        self.ours, self.base, self.bytes = False, 0, 0

    def start(self) -> None:
        self.ours = not tracemalloc.is_tracing()
        if self.ours:
            tracemalloc.start()
        else:
            tracemalloc.reset_peak()
        self.base = tracemalloc.get_traced_memory()[0]

    def stop(self) -> None:
        self.bytes = max(0, tracemalloc.get_traced_memory()[1] - self.base)
        if self.ours:
            tracemalloc.stop()


def peak_bytes(call: Callable[[], object]) -> int:
    """The most memory one call holds at once, in bytes."""
    peak = Peak()
    peak.start()
    try:
        call()
    finally:
        peak.stop()
    return peak.bytes


def cpu_seconds(call: Callable[[], object]) -> float:
    """The CPU time of one call, in seconds."""
    start = time.process_time()
    call()
    return time.process_time() - start


@dataclass(frozen=True)
class TimeLimit:
    """A wide case's work budget: the call may take ``max(floor, TIMES × the reference's time)``; ``advice``
    says, in the refusal, what work the closed form does. ``floor`` is higher for a check that also counts its
    Python steps: the trace of each step costs time, and the step budget already caps a closed form's."""

    advice: str
    floor: float = FLOOR

    def deadline(self, reference: Callable, case) -> Deadline:
        """The budget of the learner's call on ``case``: the reference's best time of ``REPEATS`` there, measured
        now (the first call warms the caches), in the same process, on the same machine under the same load."""
        fastest = min(cpu_seconds(lambda: reference(*case.args, **case.kwargs)) for _ in range(REPEATS))
        return Deadline(self, fastest, case, peak_bytes(lambda: reference(*case.args, **case.kwargs)))

    def allowed(self, reference_seconds: float) -> float:
        return max(self.floor, TIMES * reference_seconds)

    def memory_refusal(self, held: int, reference_bytes: int, case) -> str | None:
        """What the check says of a call on ``case`` that held ``held`` bytes at once, or None if that is within
        ``max(MEMORY_FLOOR, MEMORY_TIMES`` × the reference's peak``)``."""
        if held <= max(MEMORY_FLOOR, MEMORY_TIMES * reference_bytes):
            return None
        return (
            f"on this {_size(case)} case your function held {held / 2**20:.0f} MB at once where the closed form needs "
            f"{reference_bytes / 2**20:.2g} MB: {self.advice}"
        )

    def refusal(self, taken: float, reference_seconds: float, case, stopped: bool = False) -> str | None:
        """What the check says of a call on ``case`` that took ``taken`` seconds (and was ``stopped`` there, before
        its end), or None if that is within the budget. The case's first argument has its size (``Z``, ``dy``)."""
        if taken <= self.allowed(reference_seconds):
            return None
        took = f"was stopped after {taken:.2g} s of CPU" if stopped else f"took {taken:.2g} s of CPU"
        return f"on this {_size(case)} case your function {took} where the closed form takes {reference_seconds * 1e3:.1g} ms: {self.advice}"


def _size(case) -> str:
    """The case's size, its first array's shape (``Z``, ``dy``; the tokens after a model's dict): ``12×1024``."""
    first = next((arg for arg in case.args if not isinstance(arg, dict)), None)
    return "×".join(map(str, np.shape(first)))


class Deadline:
    """One call's work budget. ``guarded`` starts and stops its clock around the call; the trace asks ``late`` between
    the learner's lines (a measurement is stopped soon after its time is up, not when it ends), the runner once
    after the call (a single NumPy call cannot be stopped)."""

    def __init__(self, limit: TimeLimit, reference_seconds: float, case, reference_bytes: int = 0) -> None:
        self.limit, self.reference_seconds, self.case = limit, reference_seconds, case
        self.reference_bytes, self.peak = reference_bytes, Peak()
        self.began, self.ended = 0.0, None

    def start(self) -> None:
        self.peak.start()
        self.began, self.ended = time.process_time(), None

    def stop(self) -> None:
        self.ended = time.process_time()
        self.peak.stop()

    def late(self) -> str | None:
        """The refusal, if the call has taken longer than its budget so far."""
        stopped = self.ended is None  # asked by the trace, while the call runs
        taken = (time.process_time() if stopped else self.ended) - self.began
        late = self.limit.refusal(taken, self.reference_seconds, self.case, stopped)
        if late or stopped:
            return late
        return self.limit.memory_refusal(self.peak.bytes, self.reference_bytes, self.case)
