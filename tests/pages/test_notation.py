"""The notation page (docs/reference/notation.md) against the path: every symbol is introduced on the core page its
row names, every page a row names uses one of its symbols, no core page before those uses it, and none is
introduced only inside optional material.

A row is ``| symbol | meaning | in the code | introduced in |``; the symbol cell holds one or more ``$…$``, the last
cell links the core page(s) that introduce it — a symbol with two meanings names both pages, or gets two rows.
A symbol is used where its TeX appears in a formula of a page's core text (not in a folded ``??? deeper`` block,
not in the exercises), as a whole: ``W_Q`` is not used by ``W_{QK}``, ``x`` not by ``\\max``, ``U`` not by the
subscript of ``W_U``.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from tools import mkdocs_yml, reading_path
from tools.docblocks import SnippetExpander
from tools.reading_time import split

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
NOTATION = DOCS / "reference" / "notation.md"
MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
LINK = re.compile(r"\]\(([^)#]+\.md)")


def normalise(tex: str) -> str:
    """TeX as compared: braces and spaces that do not change a symbol go (``W_{Q}`` is ``W_Q``)."""
    tex = re.sub(r"\\(?:mathrm|operatorname|text|mathbf|boldsymbol)\s*\{([^{}]*)\}", r"\1", tex)
    return re.sub(r"\s+", " ", tex.replace("{", "").replace("}", "")).strip()


def rows() -> list[tuple[list[str], list[str], int]]:
    """(symbols, introducing pages under docs/, line) for every four-column row of the notation page."""
    found, header = [], []
    for number, line in enumerate(NOTATION.read_text(encoding="utf-8").splitlines(), start=1):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if cells and not cells[0].startswith("$") and not cells[0].startswith("-"):
            header = [cell.lower() for cell in cells]  # a table's first row
        if header[-1:] != ["introduced in"] or len(cells) != 4 or not cells[0].startswith("$"):
            continue
        symbols = [normalise(a or b) for a, b in MATH.findall(cells[0])]
        pages = [str((NOTATION.parent / link).resolve().relative_to(DOCS)) for link in LINK.findall(cells[3])]
        found.append((symbols, pages, number))
    return found


@cache
def core_pages() -> list[tuple[str, str]]:
    """(page, the normalised TeX of every formula of its core text), in the path's order."""
    path = reading_path.compute(ROOT / "mkdocs.yml", mkdocs_yml.load()["nav"])
    expander = SnippetExpander(ROOT / "mkdocs.yml")
    pages = []
    for entry in path.pages.values():
        if entry.deeper:
            continue
        text = "\n".join(expander.expand((DOCS / entry.src).read_text(encoding="utf-8").splitlines()))
        core = re.sub(r"^```.*?^```", "", "\n".join(split(text)[0]), flags=re.S | re.M)
        pages.append((entry.src, " ⋄ ".join(normalise(a or b) for a, b in MATH.findall(core))))
    return pages


def uses(formulas: str, symbol: str) -> bool:
    return re.search(rf"(?<![A-Za-z\\_]){re.escape(symbol)}(?![A-Za-z0-9])", formulas) is not None


def test_the_notation_page_has_rows_that_name_where_each_symbol_is_introduced():
    assert len(rows()) >= 40, "the notation tables have no 'introduced in' column"


@pytest.mark.parametrize("symbols, pages, line", rows(), ids=[f"line {line}" for _, _, line in rows()])
def test_each_symbol_is_introduced_on_its_core_page_and_used_nowhere_before(symbols, pages, line):
    order = [page for page, _ in core_pages()]
    assert pages, f"notation.md:{line}: no page named as introducing {symbols}"
    for page in pages:
        assert page in order, f"notation.md:{line}: {page} is not a core page of the path"
    first = min(order.index(page) for page in pages)
    formulas = dict(core_pages())
    for symbol in symbols:
        introducing = [page for page in pages if uses(formulas[page], symbol)]
        assert introducing, f"notation.md:{line}: ${symbol}$ appears in no formula of the core of {pages}"
    for page in pages:
        assert any(uses(formulas[page], symbol) for symbol in symbols), (
            f"notation.md:{line}: {page} is named as introducing {symbols} but none appears in its core formulas"
        )
        early = [page for page in order[:first] if uses(formulas[page], symbol)]
        assert not early, f"notation.md:{line}: ${symbol}$ is used in {early} before {pages[0]} introduces it"
