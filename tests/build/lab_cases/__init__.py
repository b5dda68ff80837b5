"""The typical mistakes and other right answers of every lab, one module per lab, for tests/build/test_labs.py.

A module lists ``MISTAKES`` and ``RIGHT``: each entry names the check of the exercise it changes, says what it
tries, and holds the code put in place of that exercise's cell (``append=True``: the reference solution, then this
code, for a cell that holds several pieces and a case that changes one). A mistake must make that check say
Wrong, a right answer Correct: a mistake is refused in the exercise where it is made. With ``prints``, the case
runs the lab to its end, which must print that text (a prediction is judged in a cell after its check).
"""

from __future__ import annotations

import importlib
from typing import NamedTuple


class Variant(NamedTuple):
    check: str
    about: str
    code: str
    append: bool = False
    prints: str = ""


def mistake(check: str, about: str, code: str, append: bool = False, prints: str = "") -> Variant:
    return Variant(check, about, code, append, prints)


right = mistake


def of(lab: str):
    """The module of a lab's cases: ``docs/labs/backward-passes.py`` -> ``lab_cases.backward_passes``."""
    try:
        return importlib.import_module(f"tests.build.lab_cases.{lab.replace('-', '_')}")
    except ModuleNotFoundError:
        return None  # the meta test says which lab has no cases
