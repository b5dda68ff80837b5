"""Every registered figure draws, in both themes, as a real SVG, and every figure is used by a page;
the figure code is site tooling (tools/figures.py), so the library a reader installs needs no matplotlib."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib import metadata
from pathlib import Path

import pytest

from tools import figures

ROOT = Path(__file__).resolve().parent.parent
FIGURE_LINK = re.compile(r"figures/([a-z0-9-]+)\.(light|dark)\.svg")


@pytest.mark.parametrize("theme", sorted(figures.THEMES))
@pytest.mark.parametrize("name", sorted(figures.FIGURES))
def test_figure_renders_to_svg(name, theme):
    svg = figures.render_svg(name, theme)
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    drawn = [element for element in root.iter() if element.tag.split("}")[-1] in {"path", "text", "image", "use"}]
    assert len(drawn) > 10, f"figure {name!r} ({theme}) draws almost nothing"


def test_figures_are_deterministic():
    name = sorted(figures.FIGURES)[0]
    assert figures.render_svg(name, "dark") == figures.render_svg(name, "dark")


def test_unknown_names_and_themes_are_refused():
    with pytest.raises(KeyError, match="no figure named 'nope'"):
        figures.render_svg("nope")
    with pytest.raises(ValueError, match="theme must be one of"):
        figures.render_svg(sorted(figures.FIGURES)[0], "sepia")


def _links() -> dict[str, set[str]]:
    used: dict[str, set[str]] = {}
    for page in (ROOT / "docs").rglob("*.md"):
        for name, theme in FIGURE_LINK.findall(page.read_text(encoding="utf-8")):
            used.setdefault(name, set()).add(theme)
    return used


def test_every_figure_is_shown_in_both_themes_and_exists():
    used = _links()
    assert set(used) <= set(figures.FIGURES), (
        f"pages link to unknown figures: {sorted(set(used) - set(figures.FIGURES))}"
    )
    unused = set(figures.FIGURES) - set(used)
    assert not unused, f"figures drawn but shown on no page: {sorted(unused)}"
    one_theme = {name: themes for name, themes in used.items() if themes != {"light", "dark"}}
    assert not one_theme, f"figures shown in only one theme: {one_theme}"


def test_the_library_does_not_need_matplotlib():
    """Every module of transformer_math imports, in a fresh interpreter, without loading matplotlib,
    and the installed package requires NumPy and nothing else outside its extras."""
    script = (
        "import importlib, pkgutil, sys, transformer_math\n"
        "names = [m.name for m in pkgutil.walk_packages(transformer_math.__path__, 'transformer_math.')]\n"
        "for name in names: importlib.import_module(name)\n"
        "print(len(names), sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))\n"
    )
    result = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, check=True)
    count, loaded = result.stdout.split(" ", 1)
    assert int(count) >= 9, f"found only {count} modules of transformer_math"
    assert loaded.strip() == "[]", f"importing the library loads matplotlib: {loaded.strip()}"

    required = [
        requirement for requirement in metadata.requires("transformer-math") or [] if "extra ==" not in requirement
    ]
    names = {re.match(r"[A-Za-z0-9_.-]+", requirement).group().lower() for requirement in required}
    assert names == {"numpy"}, f"the library requires {sorted(names)} (reinstall it if pyproject.toml changed)"
