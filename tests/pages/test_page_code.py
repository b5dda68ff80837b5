"""Each page's code lives in one place: what a page includes, draws or lets the reader move comes from its own
module under snippets/ (the path names the page), from the library, or from shared machinery."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tools import chapters
from tools.explorers import EXPLORERS
from tools.figures import FIGURES

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
INCLUDE = re.compile(r'--8<-- "(?P<path>[^":]+)(?::[^"]*)?"')
FIGURE = re.compile(r"figures/(?P<name>[a-z0-9-]+)\.(?:light|dark)\.svg")
EXPLORER = re.compile(r'data-explorer="(?P<name>[a-z0-9-]+)"')
SHARED = {"snippets/get-the-library.md", "tools/diagrams.py"}  # the install box; the Part IV diagram helpers

chapters.import_all()


def nav_pages() -> list[str]:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    return sorted(set(re.findall(r"([\w./-]+\.md)\s*$", nav, re.M)) - {"contributing.md"})


@pytest.mark.parametrize("page", nav_pages())
def test_a_page_takes_its_code_from_its_own_module(page):
    text = (DOCS / page).read_text(encoding="utf-8")
    own = chapters.path_of(chapters.module_of(page)).relative_to(ROOT).as_posix()
    for match in INCLUDE.finditer(text):
        path = match.group("path")
        assert path == own or path.startswith("src/transformer_math/") or path in SHARED, (
            f"docs/{page} includes {path}: a page's code belongs in {own} (or the library)"
        )
    module = chapters.module_of(page)
    for kind, registry, pattern in [("figure", FIGURES, FIGURE), ("explorer", EXPLORERS, EXPLORER)]:
        for name in sorted({match.group("name") for match in pattern.finditer(text)}):
            assert name in registry, f"docs/{page} shows the {kind} {name!r}, which no module registers"
            assert registry[name].__module__ == module, (
                f"docs/{page} shows the {kind} {name!r} of {registry[name].__module__}; it belongs in {own}"
            )


def test_every_chapter_module_is_used_by_its_page():
    for module in chapters.modules():
        page = DOCS / chapters.page_of(module)
        text = page.read_text(encoding="utf-8")
        names = [*chapters.registered(FIGURES, module), *chapters.registered(EXPLORERS, module)]
        own = chapters.path_of(module).relative_to(ROOT).as_posix()
        assert names or own in text, f"{own} has nothing that docs/{chapters.page_of(module)} shows"
