"""Library code shown on a page hides nothing: every name it calls is imported or shown in the same block.

A page includes a section of the library with ``--8<-- "src/transformer_math/x.py:name"``. A reader who
copies that block gets a function that runs only if the block also imports (or includes) the helpers it
calls. Sections that are methods of a class (indented code) are shown to be read, not run, and are left out.
"""

from __future__ import annotations

import ast
import builtins
import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = re.compile(r'^\s*--8<-- "(src/[^":]+):([^"]+)"\s*$')
IMPORT = re.compile(r"^\s*(?:from \S+ )?import (.+?)\s*(?:#.*)?$")


def section(path: str, name: str) -> str:
    text = (ROOT / path).read_text()
    match = re.search(rf"# --8<-- \[start:{re.escape(name)}\]\n(.*?)# --8<-- \[end:{re.escape(name)}\]", text, re.S)
    assert match, f"no section {name!r} in {path}"
    return match.group(1)


def free_names(code: str) -> set[str]:
    """Names the code reads but neither defines, assigns, imports nor gets from builtins."""
    loaded, bound = set(), set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return loaded - bound - set(dir(builtins))


def blocks_with_includes():
    for page in sorted((ROOT / "docs").rglob("*.md")):
        lines = page.read_text().splitlines()
        start = None
        for number, line in enumerate(lines):
            if line.strip().startswith("```"):
                if start is None:
                    start = number
                    continue
                body, start = lines[start + 1 : number], None
                includes = [INCLUDE.match(b).groups() for b in body if INCLUDE.match(b)]
                if includes and any(p.startswith("src/") for p, _ in includes):
                    yield pytest.param(body, includes, id=f"{page.relative_to(ROOT)}:{number + 1 - len(body)}")


@pytest.mark.parametrize(("body", "includes"), list(blocks_with_includes()))
def test_shown_library_code_names_nothing_it_hides(body, includes):
    imported = set()
    for line in body:
        match = IMPORT.match(line)
        if match:
            imported.update(name.strip().split(" as ")[-1] for name in match.group(1).split(","))
    sections = [section(path, name) for path, name in includes]
    runnable = [code for code in sections if not code.startswith((" ", "\t"))]  # methods are read, not run
    defined = {name for code in runnable for name in re.findall(r"^(?:def|class) (\w+)", code, re.M)}
    missing = set().union(*(free_names(textwrap.dedent(code)) for code in runnable)) - imported - defined
    assert not missing, f"the block shows code that calls {sorted(missing)} but neither imports nor shows them"
