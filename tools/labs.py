"""The labs' exercises and their reference solutions, shared by the build and the tests.

A lab (``docs/labs/*.py``, jupytext percent format) has cells tagged ``exercise`` with a ``...`` for the
learner to replace, each followed by a Markdown cell holding a folded hint (``<details><summary>Hint``, or
several: ``<summary>Hint: the route``, then ``<summary>Hint: the formula``) and then the reference solution: a ``python`` fence in a folded ``<details><summary>Solution`` block. The
downloadable notebook keeps the blanks; the site shows the solved run (``solved_page``), so the reader sees
every figure and every check passing, with the hints still folded.
"""

from __future__ import annotations

import copy
import re

import nbformat

SOLUTION = re.compile(r"<details><summary>Solution</summary>.*?```python\n(?P<code>.*?)\n```.*?</details>", re.S)
HINT = re.compile(r"<details><summary>Hint[^<]*</summary>.*?</details>", re.S)  # "Hint", "Hint: the route"

# Raw HTML in the theme's admonition markup: a notebook's Markdown is not Python-Markdown.
SOLVED_NOTE = """\
<div class="admonition tip">
<p class="admonition-title">This page shows the lab solved</p>
<p>Every exercise cell below holds its solution, and every check says <strong>Correct</strong>. To do the
lab yourself, download the notebook with the button at the top of the page, or
<a href="{colab}">open it in Colab</a>: there each exercise cell holds a <code>...</code> to replace, and its
checks say <strong>Not yet</strong> until you do.</p>
</div>"""


def exercises(notebook) -> list[int]:
    """The indices of the cells the learner fills in."""
    return [i for i, cell in enumerate(notebook.cells) if "exercise" in cell.metadata.get("tags", [])]


def solution(notebook, exercise_index: int) -> str:
    """The reference solution of an exercise: the python fence of the folded block right after it."""
    following = notebook.cells[exercise_index + 1]
    match = SOLUTION.search(following.source) if following.cell_type == "markdown" else None
    if match is None:
        raise ValueError(f"exercise cell {exercise_index} has no <details> solution right after it")
    return match.group("code")


def with_code(notebook, replacements: dict[int, str]):
    """A copy of ``notebook`` whose exercise cells (numbered from 1) hold the given code."""
    changed = copy.deepcopy(notebook)
    cells = exercises(changed)
    for number, code in replacements.items():
        changed.cells[cells[number - 1]].source = code
    return changed


def solved(notebook):
    """``notebook`` with every exercise replaced by its reference solution."""
    return with_code(notebook, {n: solution(notebook, i) for n, i in enumerate(exercises(notebook), start=1)})


def solved_page(notebook, colab: str):
    """What the site shows: the solved notebook, its exercise cells tagged ``solution`` instead, without the
    folded solutions (the cell above already holds the code) but with the folded hints, and a note under the
    title saying so, with the link that opens the notebook in Colab."""
    page = solved(notebook)
    for index in reversed(exercises(notebook)):
        page.cells[index].metadata["tags"] = ["solution"]
        hints = [found.group(0) for found in HINT.finditer(page.cells[index + 1].source)]
        if hints:
            page.cells[index + 1].source = "\n\n".join(hints)
        else:
            del page.cells[index + 1]
    page.cells.insert(1, nbformat.v4.new_markdown_cell(SOLVED_NOTE.format(colab=colab)))
    return page
