"""Every registered figure draws, in both themes, as a real SVG, and every figure is used by a page;
the figure code is site tooling (snippets/, tools/figures.py), so the library a reader installs needs no
matplotlib."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib import metadata
from pathlib import Path

import pytest

from snippets.part_4.attention import attention_steps
from snippets.part_4.block import block_diagram
from snippets.part_4.multi_head import multi_head_flow
from tools import chapters, figures

chapters.import_all()  # registers every chapter's figures

ROOT = Path(__file__).resolve().parents[2]
FIGURE_LINK = re.compile(r"figures/([a-z0-9-]+)\.(light|dark)\.svg")


@pytest.mark.parametrize("theme", sorted(figures.THEMES))
@pytest.mark.parametrize("name", sorted(figures.FIGURES))
def test_figure_renders_to_svg(name, theme, built_site):
    """Every figure as the build drew it (read from the built site: a figure is computed once a run)."""
    svg = (built_site / "figures" / f"{name}.{theme}.svg").read_text(encoding="utf-8")
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    drawn = [element for element in root.iter() if element.tag.split("}")[-1] in {"path", "text", "image", "use"}]
    assert len(drawn) > 10, f"figure {name!r} ({theme}) draws almost nothing"


def test_figures_are_deterministic(built_site):
    """Drawn twice here, and once in the build's own process: the same SVG text."""
    svg = figures.render_svg("exp-and-log", "dark")
    assert svg == figures.render_svg("exp-and-log", "dark")
    assert svg == (built_site / "figures" / "exp-and-log.dark.svg").read_text(encoding="utf-8")


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


def test_part_iv_diagrams_show_the_librarys_shapes_and_numbers():
    """The diagrams of the block, of attention and of multi-head attention are computed, not typed: their
    labels carry the shapes of a real forward pass and the attention weights the library returns."""
    import numpy as np

    from transformer_math.attention import causal_mask, scaled_dot_product_attention

    def texts(fig):
        return [text.get_text() for text in fig.axes[0].texts]

    block = texts(block_diagram())
    for label in ["$X_0$ (4, 8)", "$X_1$ (4, 8)", "$X_2$ (4, 8)", "logits $Z$  (4, 5)", "tokens $t$  (4,)"]:
        assert label in block, f"block diagram lacks {label!r}: {block}"
    assert any("(4, 32)" in text for text in block), "the feed-forward's hidden shape (n, d_ff) is missing"

    rng = np.random.default_rng(0)  # the attention diagram's own example
    q, k, v = (rng.normal(size=(4, 2)) for _ in range(3))
    output, weights = scaled_dot_product_attention(q, k, v, mask=causal_mask(4))
    shown = texts(attention_steps())
    below = np.tril(np.ones((4, 4), dtype=bool))
    for value in [*weights[below], *output.ravel()]:
        assert f"{value:.2f}".replace("-", "−") in shown, f"attention diagram lacks the value {value:.2f}"
    assert shown.count("−∞") == 6 and shown.count("0") == 6, "the causal mask hides the 6 cells above the diagonal"

    fig = multi_head_flow()
    flow = texts(fig)
    assert sum("(2, 4, 4)" in text for text in flow) == 3, flow  # split, weights, heads: (h, n, ...)
    assert len(fig.axes[0].patches) == 2 * 7 * 4 * 8  # 7 arrays of 32 cells, each a fill and a border


PHONE_CONTENT_PX = 343  # the text column of a 375 px phone: Material leaves 16 px on each side


@pytest.mark.parametrize("name", ["ladder-losses", "ladder-steps", "writer-frontier", "writer-curves"])
def test_figures_of_stored_runs_read_on_a_phone_without_a_tap(name):
    """These figures draw no per-seed column of numbers: at the width of a phone's text column their smallest
    text is at least 10 px, so the reader needs no tap to read them (they draw from stored runs: no training)."""
    svg = figures.render_svg(name, "light")
    view_width = float(re.search(r'viewBox="0 0 ([\d.]+)', svg).group(1))
    smallest = min(float(size) for size in re.findall(r"font-size: ?([\d.]+)px", svg))
    assert smallest * PHONE_CONTENT_PX / view_width >= 10, (
        f"{name}: text at {smallest * PHONE_CONTENT_PX / view_width:.1f} px"
    )
