"""Every registered figure draws, in both themes, as a real SVG, and every figure is used by a page."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from transformer_math import figures

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
    assert set(used) <= set(figures.FIGURES), f"pages link to unknown figures: {sorted(set(used) - set(figures.FIGURES))}"
    unused = set(figures.FIGURES) - set(used)
    assert not unused, f"figures drawn but shown on no page: {sorted(unused)}"
    one_theme = {name: themes for name, themes in used.items() if themes != {"light", "dark"}}
    assert not one_theme, f"figures shown in only one theme: {one_theme}"
