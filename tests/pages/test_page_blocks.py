"""The code a page shows: as the formatter writes it, and expanded with the same snippet settings as the site."""

from __future__ import annotations

from pathlib import Path

from tools.docblocks import SnippetExpander

ROOT = Path(__file__).resolve().parents[2]


def test_page_code_has_at_most_two_blank_lines_in_a_row():
    """As the formatter writes Python: a library section ends with two blank lines, so a page that adds one
    more after its --8<-- line shows three (tests/repo/test_style.py formats the sources, not the pages)."""
    expander = SnippetExpander(ROOT / "mkdocs.yml")
    for md in sorted((ROOT / "docs").rglob("*.md")):
        for number, block in enumerate(expander.python_blocks(md.read_text(encoding="utf-8")), start=1):
            assert "\n\n\n\n" not in block.strip("\n"), f"{md.relative_to(ROOT)}: Python block {number}"


def test_harness_reads_the_same_snippet_options_as_mkdocs():
    from mkdocs.config import load_config

    from tools.docblocks import snippet_options

    assert (
        snippet_options(ROOT / "mkdocs.yml") == load_config(str(ROOT / "mkdocs.yml")).mdx_configs["pymdownx.snippets"]
    )
