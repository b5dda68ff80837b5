"""The seed outline's matrix-operations program stays on the path: two 2 x 2 matrices printed added, subtracted,
multiplied entry by entry and as a matrix product, and transposed, with the outputs it prints, on a core page of
Part I (the page harness checks that the outputs are what the code prints; this checks that they are shown)."""

from __future__ import annotations

import re
from pathlib import Path

from tools import mkdocs_yml, reading_path
from tools.reading_time import split

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = [
    'print("Addition:\\n", A + B)',
    'print("Subtraction:\\n", A - B)',
    'print("Element-wise Multiplication:\\n", A * B)',
    'print("Matrix Multiplication:\\n", A @ B)',
    'print("Transpose:\\n", A.T)',
]
OUTPUTS = [
    "[[ 6  8]\n [10 12]]",
    "[[-4 -4]\n [-4 -4]]",
    "[[ 5 12]\n [21 32]]",
    "[[19 22]\n [43 50]]",
    "[[1 3]\n [2 4]]",
]
FENCES = re.compile(r"^```python\n(.*?)^```\n\n```output\n(.*?)^```", re.S | re.M)


def test_the_seed_matrix_program_and_its_outputs_are_on_a_core_page_of_part_one():
    path = reading_path.compute(ROOT / "mkdocs.yml", mkdocs_yml.load()["nav"])
    pages = [e.src for e in path.pages.values() if e.part == "Part I" and not e.deeper]
    shown = []
    for src in pages:
        core = "\n".join(split((ROOT / "docs" / src).read_text(encoding="utf-8"))[0]) + "\n"
        for code, output in FENCES.findall(core):
            if all(line in code for line in PROGRAM) and all(printed in output for printed in OUTPUTS):
                shown.append(src)
    assert shown, f"no core page of Part I ({', '.join(pages)}) shows the seed's matrix program with its outputs"
