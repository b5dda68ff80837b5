r"""The check runner of the labs: one call, one verdict line, ``Correct``, ``Wrong`` or ``Not yet``.

A lab's module (``transformer_math.labs.softmax``, ...) builds a ``Checks`` from its exercises, and the
notebook calls it: ``check("softmax", softmax)``. Each kind of exercise has its check:

* ``FunctionCheck`` runs the learner's function on hidden cases (``cases``),
  inside the guard (``guard``), checks that it left its inputs as they were, and
  compares its result with a reference computed afterwards, out of the learner's reach
  (``diagnose``). It stops at the first case that fails and says which. The cases
  are the same at every run but the hard ones (``Case.fresh``: those a naive answer fails) and the last, which
  are drawn anew from the operating system's randomness each time the check runs: no table of answers made
  before the run holds them. The learner's result is turned into plain numbers inside
  the guard, so that an object computing its value later, out of the guard's sight, gains nothing.
* ``HandNumber`` (``hand``) compares a number worked out by hand with a hash of the answer.
* ``Choice`` records a prediction: any of the offered answers is right, if written before the run.
* ``ValueCheck`` compares a value computed in the notebook with a reference computed from the notebook's
  data (the check is passed that data).

While an exercise holds its ``...``, or uses a function of an earlier one that does, the verdict is ``Not yet``.
While a function of ``numpy`` is not NumPy's own (a cell replaced ``np.all``), before the run or after it, the
verdict is ``Wrong``, and says so, whatever the answer: the comparisons rely on NumPy.

Example
-------
>>> import numpy as np
>>> from transformer_math.labs.cases import Case
>>> from transformer_math.labs.runner import Checks, FunctionCheck
>>> def cases(rng):
...     return [Case((rng.normal(size=n),)) for n in (1, 4, 9)]
>>> check = Checks("demo", {"double": FunctionCheck(("x",), cases, lambda x: 2 * x)})
>>> check("double", lambda x: 2 * np.asarray(x))
Correct: double - 4 hidden cases
>>> check("double", lambda x: x + 2)
Wrong: double - case 1 of 4: x = [0.2655]
  it differs from the right value by more than the tolerance (1e-06)
>>> check("double", ...)
Not yet: double - replace the ... in the exercise
"""

from __future__ import annotations

import inspect
import re
import types
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from transformer_math.labs.authorship import Learners
from transformer_math.labs.cases import (
    Case,
    changed,
    changed_argument,
    fresh_generator,
    generator,
    sealed,
    snapshot,
)
from transformer_math.labs.diagnose import compare, compare_parts, lost_precision, replaced_numpy
from transformer_math.labs.guard import WriteItYourself, guarded
from transformer_math.labs.measured import near_not_exact
from transformer_math.labs.submitted import refusal

__all__: list[str] = []

NOT_YET = "replace the ... in the exercise"
NOT_YET_EARLIER = "it uses a function that still holds its ... (an earlier exercise?)"


class Verdict(Exception):
    """How a check ended, when it ends early: ``Verdict("Wrong", "it returned None")``."""

    def __init__(self, verdict: str, *lines: str) -> None:
        super().__init__(verdict)
        self.verdict, self.lines = verdict, list(lines)


def holds_ellipsis(value) -> bool:
    """Whether a result is, or holds, the ``...`` of an unfinished exercise."""
    if value is Ellipsis:
        return True
    if isinstance(value, (tuple, list)) and len(value) <= 16:
        return any(holds_ellipsis(part) for part in value)
    if isinstance(value, dict):
        return any(part is Ellipsis for part in value.values())
    return isinstance(value, np.ndarray) and value.dtype == object and any(v is Ellipsis for v in value.flat)


ELLIPSIS_IN_ERROR = re.compile(r"'ellipsis'|type ellipsis")  # not einsum's "'...' ellipsis"


def unfinished(error: BaseException) -> bool:
    """Whether an error comes from a ``...`` still in place (``'ellipsis' and 'float'``)."""
    return bool(ELLIPSIS_IN_ERROR.search(str(error)))


def plain(value):
    """``value`` as plain data (arrays, numbers, lists, tuples, dicts): run inside the guard, so that an object
    whose value is computed only when the check reads it (``__array__``, ``__float__``, a lazy sequence) is
    computed where the guard sees it. Objects that are none of these (the nodes of a graph) stay as they are."""
    kind = type(value)
    if value is None or value is Ellipsis or kind in (bool, int, float, complex, str):
        return value
    if isinstance(value, (list, tuple)):
        return (tuple if isinstance(value, tuple) else list)(plain(part) for part in value)
    if isinstance(value, (set, frozenset)):  # a set stays one (its members read here), so a check can name it
        return (frozenset if isinstance(value, frozenset) else set)(value)
    if isinstance(value, dict):
        return {key: plain(part) for key, part in value.items()}
    if isinstance(value, np.ndarray):
        return np.array(value, subok=False)
    if isinstance(value, np.generic) and kind.__module__ == "numpy":
        return value
    if isinstance(value, (bool, int, float, complex)):
        return (complex if isinstance(value, complex) else float if isinstance(value, float) else int)(value)
    numeric = ("__array__", "__array_interface__", "__array_struct__", "__float__", "__int__", "__index__", "__len__")
    if any(hasattr(kind, name) for name in numeric):
        try:
            return np.asarray(value)
        except WriteItYourself:
            raise
        except Exception:  # noqa: BLE001 - not an array: the comparison says what it is
            return value
    return value


def call_guarded(function, args: tuple, kwargs: dict, *options, **named):
    """``function(*args, **kwargs)`` in the guard (``options``, ``named``: ``guarded``'s): its result and the
    guard's record; a refusal is a Verdict."""
    error = None
    with guarded(*options, **named) as seen:
        try:
            result = plain(function(*args, **kwargs))
        except WriteItYourself:
            result = None
        except Verdict:
            raise
        except RecursionError as err:
            error = err
        except Exception as err:  # noqa: BLE001 - reported as the check's verdict
            error = err
    if seen.refused:
        raise Verdict("Wrong", seen.messages[0])
    if seen.switched_off:
        raise Verdict("Wrong", "it switched off sys.setprofile, which the check uses to see the calls it makes")
    if error is not None:
        if unfinished(error):
            raise Verdict("Not yet", NOT_YET_EARLIER)
        said = str(error) if len(str(error)) <= 300 else f"{str(error)[:300]}..."  # a KeyError of a long key
        raise Verdict("Wrong", f"it raised {type(error).__name__}: {said}")
    if holds_ellipsis(result):
        raise Verdict("Not yet", NOT_YET)
    return result, seen


def parameter_names(function, count: int, default: tuple[str, ...]) -> list[str]:
    try:
        names = [p.name for p in inspect.signature(function).parameters.values()]
    except (TypeError, ValueError):
        names = []
    return (names + list(default))[:count] if len(names) >= count else list(default)


@dataclass(frozen=True)
class FunctionCheck:
    """The learner's function on hidden cases, against ``reference``, inside the guard.

    ``names`` are the arguments' names, for the descriptions; ``cases(rng)`` returns the cases; ``reference``
    takes the same arguments. ``parts`` names the values of a function that returns several; ``rows_sum_to_one``
    adds the rows' sums to a failure; ``own``, ``allowed``, ``loops``, ``budget``, ``derived`` and ``advice`` go to
    the guard. ``call`` replaces the plain call ``function(*args, **kwargs)`` (to run the function inside a loop of
    the check's own), and ``mutates`` names the arguments the function is meant to change. ``compare_with(result, expected, tol)``
    replaces the comparison of arrays (a loss that may be infinite); ``verify(result, case, seen)`` adds checks a
    comparison cannot make. Both return the lines of a failure or None. ``watch(function)`` names code objects
    (the learner's other functions) whose calls the guard counts for ``verify``.
    """

    names: tuple[str, ...]
    cases: Callable[[np.random.Generator], list[Case]]
    reference: Callable
    tol: float = 1e-6
    rtol: float = 0.0
    rows_sum_to_one: bool = False
    parts: tuple[str, ...] = ()
    own: tuple[str, ...] = ()
    allowed: tuple[str, ...] = ()
    loops: bool = False
    call: Callable | None = None
    mutates: tuple[str, ...] = ()
    compare_with: Callable | None = None
    verify: Callable | None = None
    watch: Callable | None = None
    budget: int | None = None
    derived: bool = False
    advice: str | None = None
    runs: int = field(default=0, repr=False, compare=False)  # how often this check has run (a pinned seed's part)

    def run(self, name: str, function) -> tuple[str, list[str]]:
        if function is Ellipsis:
            return "Not yet", [NOT_YET]
        if not callable(function):
            return "Wrong", [f"{name} should be a function; it is a {type(function).__name__}"]
        refused = refusal(function, self.own)
        if refused:
            return "Wrong", [refused]
        cases = self.this_run(name, self.cases(generator(name)))
        for number, case in enumerate(cases, start=1):
            pristine, given = snapshot(case), snapshot(case)
            where = f"case {number} of {len(cases)}: {case.describe(list(self.names))}"
            try:
                self.run_case(function, given, pristine)
            except Verdict as verdict:
                if verdict.verdict == "Not yet":
                    return "Not yet", verdict.lines
                return "Wrong", [where, *verdict.lines]
        return "Correct", [f"{len(cases)} hidden cases"]

    def this_run(self, name: str, fixed: list[Case]) -> list[Case]:
        """The cases of this run: the ``fixed`` ones, but each marked ``fresh`` (one a naive answer fails: an
        overflow, eps, a large loss, a wide case) drawn anew in its place from fresh randomness, and one case more
        drawn anew, one of the others that the generator makes differently from the fixed ones (drawn again, a
        few times, if it made none)."""
        object.__setattr__(self, "runs", self.runs + 1)  # frozen against edits; this count is its own
        rng = fresh_generator(name, self.runs)
        drawn = self.cases(rng)
        cases = [new if old.fresh else old for old, new in zip(fixed, drawn, strict=True)]
        for _ in range(8):
            # never a wide case: it is there for its size, and the case drawn anew stays one of the varied ones
            others = [c for c, old in zip(drawn, fixed) if not c.fresh and c.time_limit is None and different(c, old)]
            if others:
                break
            drawn = self.cases(rng)
        else:
            return cases
        richest = max(map(richness, others))  # the most distinct numbers: the hardest to have met before
        candidates = [c for c in others if richness(c) == richest]
        case = candidates[int(rng.integers(len(candidates)))]
        case.about = f"{case.about}, drawn anew at this run" if case.about else "drawn anew at this run"
        return [*cases, case]

    def kept(self, case: Case) -> Case:
        """The arguments of ``case`` the function is not meant to change."""
        args = tuple(a for n, a in zip(self.names, case.args) if n not in self.mutates)
        return Case(args, {k: v for k, v in case.kwargs.items() if k not in self.mutates})

    def run_case(self, function, given: Case, pristine: Case) -> None:
        call = self.call or (lambda f, *args, **kwargs: f(*args, **kwargs))
        watched = self.watch(function) if self.watch else ()
        entry = function if isinstance(function, type) else Learners(function)  # its call counts as the learner's
        limit = pristine.time_limit
        deadline = limit.deadline(self.reference, pristine) if limit else None  # the reference timed just before
        seal = sealed((pristine.args, pristine.kwargs))
        result, seen = call_guarded(
            lambda: call(entry, *given.args, **given.kwargs),
            (),
            {},
            self.own,
            self.allowed,
            self.loops,
            watched,
            self.budget,
            self.derived,
            deadline,
            self.advice,
        )
        if sealed((pristine.args, pristine.kwargs)) != seal:
            raise Verdict("Wrong", REACHED)
        names = [n for n in self.names if n not in self.mutates]
        moved = changed_argument(self.kept(given), self.kept(pristine), names)
        if moved:
            raise Verdict("Wrong", f"your function changed its input {moved}: compute the result in a new array")
        expected = self.reference(*pristine.args, **pristine.kwargs)
        tol = pristine.tol if pristine.tol is not None else self.tol
        options = {"tol": tol, "rtol": self.rtol, "rows_sum_to_one": self.rows_sum_to_one}
        if self.compare_with is not None:
            lines = self.compare_with(result, expected, tol)
        elif self.parts:
            lines = compare_parts(result, expected, self.parts, **options)
        else:
            lines = compare(result, expected, **options)
        near = lines and self.derived and near_not_exact(result, expected)
        lines = lines or lost_precision(result, (*pristine.args, *pristine.kwargs.values()), self.parts)
        if lines:
            raise Verdict("Wrong", *lines, *([near] if near else []))
        late = deadline and deadline.late()  # a call the trace could not stop: one long NumPy call
        if late:
            raise Verdict("Wrong", late)
        if self.verify is not None:
            lines = self.verify(result, pristine, seen)
            if lines:
                raise Verdict("Wrong", *lines)


REACHED = (
    "your function changed the check's own copy of its inputs, which it was not given (reached up the call "
    "stack?): a function works on its arguments alone"
)


def different(case: Case, fixed: Case) -> bool:
    """Whether two cases hold different arguments (a fixed case, ``[1000, 1001, 1002]``, comes out the same)."""
    try:
        return changed(snapshot(fixed.args), snapshot(case.args)) or changed(fixed.kwargs, case.kwargs)
    except (TypeError, ValueError):
        return True


def richness(case: Case) -> int:
    """How many distinct numbers a case's arguments hold (a model's arrays included)."""
    found: set[float] = set()

    def collect(value) -> None:
        if isinstance(value, dict):
            for part in value.values():
                collect(part)
        elif isinstance(value, (list, tuple, np.ndarray, int, float, np.number)) and not isinstance(value, bool):
            try:
                array = np.asarray(value, dtype=float)
            except (TypeError, ValueError):
                for part in value if isinstance(value, (list, tuple)) else ():
                    collect(part)
                return
            found.update(array.reshape(-1)[:10_000].tolist())

    for value in (*case.args, *case.kwargs.values()):
        collect(value)
    return len(found)


class Checks:
    """A lab's checks by name; calling it runs one and prints its verdict. ``ready`` tells a cell that uses
    the learner's work whether it is there yet."""

    def __init__(self, lab: str, checks: dict) -> None:
        self.lab, self.checks = lab, types.MappingProxyType(dict(checks))  # read-only: no edit by accident

    @staticmethod
    def ready(value, *args) -> bool:
        """Whether ``value`` (or ``value(*args)``, for a function) is there: no ``...`` in it, and no error."""
        try:
            result = value(*args) if callable(value) else value
        except Exception:  # noqa: BLE001 - the exercise's own check says what is wrong
            return False
        return not holds_ellipsis(result)

    def passed(self, name: str, value, *data) -> bool:
        """Whether the check ``name`` says Correct of ``value``, printing nothing: a cell that shows what holds
        the answer (a product that holds a number worked by hand) shows it only then."""
        verdict, _ = self.judge(name, value, *data)
        return verdict == "Correct"

    def judge(self, name: str, value, *data) -> tuple[str, list[str]]:
        """The verdict of the check ``name`` on ``value``: none while NumPy's own functions are replaced, before
        the run or by it (the comparison uses NumPy's functions as imported, the references the module's)."""
        replaced = replaced_numpy()
        if replaced:
            return "Wrong", [replaced]
        try:
            verdict, lines = self.checks[name].run(name, value, *data)
        except Verdict as early:
            verdict, lines = early.verdict, early.lines
        replaced = replaced_numpy()
        return ("Wrong", [replaced]) if replaced else (verdict, lines)

    def __call__(self, name: str, value=..., *data) -> None:
        if not isinstance(name, str):
            raise TypeError(f"name must be the name of a check, a string; got {name!r}")
        if name not in self.checks:
            raise ValueError(f"no check named {name!r} in the {self.lab} lab; the checks are {', '.join(self.checks)}")
        verdict, lines = self.judge(name, value, *data)
        head = f"{verdict}: {name}"
        if lines:
            head += f" - {lines[0]}"
        print("\n".join([head, *(f"  {line}" for line in lines[1:])]))
