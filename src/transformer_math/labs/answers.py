r"""The checks of answers that are not functions: a prediction written down before a run (``Choice``), and a
value the notebook computed (``ValueCheck``). A number worked out by hand has its own (``hand.HandNumber``).

Example
-------
>>> from transformer_math.labs.answers import Choice
>>> Choice(("grows", "stays")).run("prediction", "Grows ")[0]
'Correct'
>>> Choice(("grows", "stays")).run("prediction", 0.8)
('Wrong', ["write it as a string, in quotes: one of 'grows', 'stays'"])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from transformer_math.labs.diagnose import compare
from transformer_math.labs.runner import NOT_YET, Verdict, holds_ellipsis

__all__: list[str] = []


@dataclass(frozen=True)
class Choice:
    """A prediction, written down before the run: any of ``choices`` is a right answer here. With ``keys``, one
    prediction for each, in a dict (the cell after it reads them by key)."""

    choices: tuple[str, ...]
    keys: tuple[str, ...] = ()

    def run(self, name: str, value) -> tuple[str, list[str]]:
        offered = ", ".join(repr(c) for c in self.choices)
        if self.keys and value is not Ellipsis:
            shape = "{" + ", ".join(f"{key!r}: ..." for key in self.keys) + "}"
            if not isinstance(value, dict) or set(value) != set(self.keys):
                keys = ", ".join(map(repr, value)) if isinstance(value, dict) else ""
                said = f"a dict with the keys {keys}" if keys else "an empty dict" if isinstance(value, dict) else None
                said = said or f"a {type(value).__name__}"
                return "Wrong", [f"{name} should be a dict, {shape}, each one of {offered}; it is {said}"]
            values = [value[key] for key in self.keys]
        else:
            values = [value]
        if any(v is Ellipsis for v in values):
            return "Not yet", ["write your prediction in place of the ..."]
        each = " for each" if self.keys else ""
        if not all(isinstance(v, str) for v in values):
            return "Wrong", [f"write it as a string, in quotes: one of {offered}{each}"]
        if not all(v.strip().lower() in self.choices for v in values):
            spaced = all("".join(v.split()).lower() in {"".join(c.split()) for c in self.choices} for v in values)
            return "Wrong", [f"write one of {offered}{each}" + (", its spaces as shown" if spaced else "")]
        return "Correct", [
            "a prediction written down (one of the choices, not yet judged); the next cell's run says whether it held"
        ]


@dataclass(frozen=True)
class ValueCheck:
    """A value the notebook computed, against ``reference(*data)`` computed from the data the check is passed."""

    reference: Callable
    tol: float = 1e-6
    describe: Callable | None = None  # (value, expected) -> the lines of a failure, instead of compare's

    def run(self, name: str, value, *data) -> tuple[str, list[str]]:
        if holds_ellipsis(value) or any(holds_ellipsis(d) for d in data):
            return "Not yet", [NOT_YET]
        try:
            expected = self.reference(*data)
        except Verdict as verdict:
            return verdict.verdict, verdict.lines
        lines = self.describe(value, expected) if self.describe else compare(value, expected, tol=self.tol)
        return ("Wrong", lines) if lines else ("Correct", [])
