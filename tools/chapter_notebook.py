"""A chapter of the guide as a Jupyter notebook, made from its Markdown (hooks/notebooks.py ships one per
chapter; tests/build/test_notebooks.py runs them). Code cells are snippet-expanded as the page shows them, each
filled with the page's output block -- what the doc tests check it prints, so nothing runs here. Admonitions
become block quotes, collapsed blocks <details>, relative links point at the published site, and figures
become attachments."""

from __future__ import annotations

import base64
import functools
import itertools
import posixpath
import re
from pathlib import Path
from urllib.parse import urlsplit

import nbformat

from tools.docblocks import SNIPPET_LINE, SnippetExpander, pair_examples, parse_fences

ROOT = Path(__file__).resolve().parent.parent
# An admonition, collapsible block or tab: `!!! note "Title"`, `??? success`, `???+ tip`, `=== "Tab"`.
BLOCK_OPENER = re.compile(r'^[ \t]*(?P<kind>!!!|\?\?\?\+?|===)[ \t]*(?P<type>[^\s"]*)[^"]*(?:"(?P<title>[^"]*)")?')
# [text](url "title") and ![alt](url); the text may hold brackets two deep, as in "A = [[2, 1], [1, 2]]".
LINK = re.compile(
    r'(?P<bang>!?)\[(?P<text>(?:[^\[\]]|\[(?:[^\[\]]|\[[^\[\]]*\])*\])*)\]\((?P<url>[^)\s]+)(?P<title>\s+"[^"]*")?\)'
)


@functools.cache
def _snippets() -> SnippetExpander:
    return SnippetExpander(ROOT / "mkdocs.yml")


def page_url(src_uri: str, site_url: str = "") -> str:
    """The published URL of a Markdown page (directory URLs), absolute when ``site_url`` is given."""
    path = re.sub(r"(^|/)index\.md$", r"\1", src_uri)
    path = re.sub(r"\.md$", "/", path)
    return site_url.rstrip("/") + "/" + path if site_url else path


# --- chapters -----------------------------------------------------------------------------------


def chapter_notebook(markdown: str, src_uri: str, site_url: str = "", repo_url: str = "", image_data=None):
    """The notebook of one chapter: ``markdown`` is the page, ``src_uri`` its path under docs/, and
    ``image_data(path)`` the bytes of one of the site's images (for attachments) or None. Each code cell's
    metadata has the page line of its block, ``page_line``."""
    markdown = markdown.replace("\r\n", "\n")
    front = re.match(r"^---\n.*?\n---\n", markdown, re.S)
    if front:  # blank it out, to keep the line numbers
        markdown = "\n" * front.group(0).count("\n") + markdown[front.end() :]
    attachments = {}
    relink = _link_rewriter(src_uri, site_url, image_data, attachments)
    cells = []
    for is_code, items in itertools.groupby(_page_lines(markdown), key=lambda item: item[0] == "code"):
        if is_code:
            cells += [_code_cell(example, hidden) for _, example, hidden in items]
        else:
            cells += _markdown_cells([(text, fenced) for _, text, fenced in items], relink, attachments)
    title = next((line[2:].strip() for line in markdown.split("\n") if line.startswith("# ")), src_uri)
    note = (
        f"*This notebook is the chapter [{title}]({page_url(src_uri, site_url)}) of "
        "Mathematics for Transformers. The outputs under the code cells are the ones the page shows, "
        "checked by the guide's tests.*"
    )
    if repo_url and any("transformer_math" in cell["source"] for cell in cells if cell["cell_type"] == "code"):
        note += f" *The code uses the guide's small library: `pip install git+{repo_url}`.*"
    cells.insert(0, {"cell_type": "markdown", "metadata": {}, "source": note})
    for number, cell in enumerate(cells):  # stable ids: the same page gives the same notebook
        cell["id"] = f"cell-{number}"
    # Cells are plain dicts: nbformat's new_*_cell validate each one, a third of the time (the tests validate).
    notebook = nbformat.v4.new_notebook(cells=nbformat.from_dict(cells))
    notebook.metadata.kernelspec = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook.metadata.language_info = {"name": "python"}
    return notebook


def _page_lines(markdown: str):
    """The page in order, as ("code", example, in a collapsed block) and ("prose", Markdown line, in a fence)."""
    lines = markdown.split("\n")
    examples = {example.code.open_line: example for example in pair_examples(markdown)[0]}
    fenced = {n for fence in parse_fences(markdown) for n in range(fence.open_line, fence.close_line + 1)}
    blocks = _Blocks(lines, set(examples))
    number = 1
    while number <= len(lines):
        line, example = lines[number - 1], examples.get(number)
        if example:
            yield from (("prose", text, False) for text in blocks.close_to(len(example.code.indent)))
            yield "code", example, blocks.in_collapsed()
            number = (example.output or example.code).close_line + 1
            continue
        expanded = _snippets().expand([line]) if number not in fenced and SNIPPET_LINE.match(line) else [line]
        for text in expanded:
            yield from (("prose", out, number in fenced) for out in blocks.line(text, number, number in fenced))
        number += 1
    yield from (("prose", text, False) for text in blocks.close_to(0))


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


class _Blocks:
    """The admonitions, collapsible blocks and tabs open at a line, written as block quotes -- or as
    <details> for a collapsed one that holds no code cell (a code cell would end the <details>)."""

    def __init__(self, lines: list[str], code_lines: set[int]):
        self.lines, self.code_lines = lines, code_lines
        self.open: list[tuple[int, str]] = []  # (content indent, "quote" | "collapsed quote" | "details")

    def prefix(self) -> str:
        return "> " * sum(1 for _, style in self.open if style != "details")

    def in_collapsed(self) -> bool:
        return any(style == "collapsed quote" for _, style in self.open)

    def close_to(self, indent: int) -> list[str]:
        """Close the blocks a line at ``indent`` ends."""
        out = []
        while self.open and indent < self.open[-1][0]:
            if self.open.pop()[1] == "details":
                out += [self.prefix() + "</details>", self.prefix().rstrip()]
        return out

    def line(self, text: str, number: int, fenced: bool) -> list[str]:
        """Markdown for ``text``, from page line ``number``; a ``fenced`` line is only dedented."""
        indent = _indent_of(text)
        out = self.close_to(indent) if text.strip() else []
        body = text[min(self.open[-1][0] if self.open else 0, indent) :]
        opener = None if fenced else BLOCK_OPENER.match(text)
        if not opener:
            return out + [(self.prefix() + body).rstrip()]
        title = opener["title"] if opener["title"] is not None else opener["type"].capitalize()
        collapsed = opener["kind"] == "???"
        if collapsed and not self._holds_code(number, indent + 4):
            out += [self.prefix() + f"<details><summary>{title}</summary>", self.prefix().rstrip()]
            self.open.append((indent + 4, "details"))
        else:
            self.open.append((indent + 4, "collapsed quote" if collapsed else "quote"))
            out += [(self.prefix() + f"**{title}**" if title else self.prefix()).rstrip(), self.prefix().rstrip()]
        return out

    def _holds_code(self, number: int, indent: int) -> bool:
        """Whether a Python example opens in the block that page line ``number`` opens."""
        for later in range(number + 1, len(self.lines) + 1):
            text = self.lines[later - 1]
            if text.strip() and _indent_of(text) < indent:
                return False
            if later in self.code_lines:
                return True
        return False


def _code_cell(example, hidden: bool) -> dict:
    metadata = {"page_line": example.code.open_line}
    if hidden:  # a solution, folded on the page
        metadata.update(jupyter={"source_hidden": True}, tags=["solution"])
    outputs = []
    if example.output is not None:
        printed = "\n".join(_snippets().expand(example.output.body)).strip("\n")
        outputs.append({"output_type": "stream", "name": "stdout", "text": printed + "\n"})
    source = "\n".join(_snippets().expand(example.code.body)).strip("\n")
    return {"cell_type": "code", "execution_count": None, "metadata": metadata, "outputs": outputs, "source": source}


def _markdown_cells(lines: list[tuple[str, bool]], relink, attachments: dict) -> list[dict]:
    """The Markdown cell of some (line, in a fence) pairs, if they hold any text."""
    kept = []
    for fenced, run in itertools.groupby(lines, key=lambda pair: pair[1]):
        text = "\n".join(line for line, _ in run)  # at once: a link may span lines
        kept += (text if fenced else LINK.sub(relink, text)).split("\n")
    while kept and not kept[0].strip(" >"):  # the end of a block quote that a code cell interrupted
        kept.pop(0)
    while kept and not kept[-1].strip(" >"):
        kept.pop()
    if not kept:
        return []
    text = "\n".join(kept)
    cell = {"cell_type": "markdown", "metadata": {}, "source": text}
    used = {name: data for name, data in attachments.items() if f"attachment:{name}" in text}
    return [{**cell, "attachments": used} if used else cell]


def _link_rewriter(src_uri: str, site_url: str, image_data, attachments: dict):
    """A replacement for LINK matches: relative links point at the published site, and the figures that
    ``image_data`` has become attachments (added to ``attachments``)."""
    site = site_url.rstrip("/")

    def relink(match: re.Match) -> str:
        text, url, title = match["text"], urlsplit(match["url"]), match["title"] or ""
        if url.scheme or url.netloc:
            return match[0]
        target = posixpath.normpath(posixpath.join(posixpath.dirname(src_uri), url.path)) if url.path else src_uri
        if not match["bang"]:
            absolute = page_url(target, site_url) if target.endswith(".md") else f"{site}/{target}"
            return f"[{text}]({absolute}{'#' + url.fragment if url.fragment else ''}{title})"
        if url.fragment == "only-dark":  # the light variant stands for both
            return ""
        data = image_data(target) if image_data else None
        if data is None:
            return f"![{text}]({site}/{target}{title})"
        name = posixpath.basename(target)
        mime = "image/svg+xml" if name.endswith(".svg") else "image/png"
        attachments[name] = {mime: base64.b64encode(data).decode("ascii")}
        return f"![{text}](attachment:{name}{title})"

    return relink
