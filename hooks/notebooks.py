"""Every chapter as a Jupyter notebook, and the Practice labs as light, themed notebook pages.

Chapters: each page of ``docs/part-*/`` (but the parts' index pages) gets ``<page>.ipynb`` next to it,
generated from its Markdown at build time. Python blocks become code cells -- snippet-expanded by
``tools.docblocks`` exactly as the page shows them -- and the page's output block under each becomes
the cell's stdout. Those outputs are what the doc tests check the code prints, so the notebook is
filled without running anything here (``tests/test_notebooks.py`` runs the notebooks to keep that
true). Prose stays Markdown: admonitions become block quotes (collapsed ones ``<details>``, or hidden
code cells when they hold code), figures become attachments, links point to the published site.

Labs: ``docs/labs/*.py`` are jupytext notebooks that mkdocs-jupyter executes and renders. Each gets a
``.ipynb`` download, and its HTML is reshaped into the theme's own code and output blocks so that it
needs neither the 590 KB of JupyterLab CSS mkdocs-jupyter inlines nor any script of its own.

Pages with a notebook get ``page.nb_url``, which ``overrides/main.html`` turns into a download button.
"""

from __future__ import annotations

import base64
import hashlib
import posixpath
import re
import sys
from pathlib import Path

import nbformat
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # MkDocs restores sys.path once the hook is loaded: import now
    sys.path.insert(0, str(ROOT))
from tools.docblocks import SnippetExpander, pair_examples, parse_fences  # noqa: E402
CHAPTER = re.compile(r"^part-[^/]+/(?!index\.md$)[^/]+\.md$")
LAB = re.compile(r"^labs/[^/_][^/]*\.py$")
CSS_PATH = "assets/stylesheets/notebooks.css"
LAB_HTML_CACHE = ROOT / ".cache" / "labs-html"
NOTEBOOK_CACHE = ROOT / ".cache" / "notebooks"  # one .ipynb per chapter and lab, by a hash of all it depends on

BLOCK_OPENER = re.compile(r'^(?P<indent>[ \t]*)(?P<kind>!!!|\?\?\?\+?|===)[ \t]*(?P<rest>.*?)[ \t]*$')
# [text](url "title") and ![alt](url); the text may hold brackets two deep, as in "A = [[2, 1], [1, 2]]".
LINK = re.compile(
    r'(?P<bang>!?)\[(?P<text>(?:[^\[\]]|\[(?:[^\[\]]|\[[^\[\]]*\])*\])*)\]\((?P<url>[^)\s]+)(?P<title>\s+"[^"]*")?\)'
)
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)

_expander = None


def _snippets():
    global _expander
    if _expander is None:
        _expander = SnippetExpander(ROOT / "mkdocs.yml")
    return _expander


# --- chapters -----------------------------------------------------------------------------------


def page_url(src_uri: str, site_url: str = "") -> str:
    """The published URL of a Markdown page (directory URLs), absolute when ``site_url`` is given."""
    path = re.sub(r"(^|/)index\.md$", r"\1", src_uri)
    path = re.sub(r"\.md$", "/", path)
    return site_url.rstrip("/") + "/" + path if site_url else path


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


class _Prose:
    """Turns the page's non-code lines into plain Markdown that Jupyter renders."""

    def __init__(self, lines, src_uri, site_url, image_data, python_lines):
        self.lines, self.src_uri, self.site_url = lines, src_uri, site_url
        self.image_data, self.python_lines = image_data, python_lines
        self.stack: list[tuple[int, str]] = []  # (content indent, "quote" | "details")
        self.attachments: dict[str, dict[str, str]] = {}

    def prefix(self) -> str:
        return "> " * sum(1 for _, style in self.stack if style == "quote")

    def _extent_has_code(self, start: int, indent: int) -> bool:
        end = start + 1
        while end < len(self.lines) and (not self.lines[end].strip() or _indent_of(self.lines[end]) >= indent):
            if end + 1 in self.python_lines:
                return True
            end += 1
        return False

    def close_to(self, indent: int) -> list[str]:
        out = []
        while self.stack and indent < self.stack[-1][0]:
            _, style = self.stack.pop()
            if style == "details":
                out += [self.prefix() + "</details>", self.prefix().rstrip()]
        return out

    def line(self, index: int, verbatim: bool) -> list[str]:
        """Convert line ``index`` (0-based); ``verbatim`` lines belong to a fence and are only dedented."""
        text = self.lines[index]
        out = [] if not text.strip() else self.close_to(_indent_of(text))
        depth = self.stack[-1][0] if self.stack else 0
        body = text[min(depth, _indent_of(text)):]
        opener = None if verbatim else BLOCK_OPENER.match(text)
        if opener:
            kind, rest = opener.group("kind"), opener.group("rest")
            title_match = re.search(r'"([^"]*)"', rest)
            kind_name = rest.split()[0] if rest and not rest.startswith('"') else ""
            title = title_match.group(1) if title_match else kind_name.capitalize()
            indent = _indent_of(text) + 4
            collapsed = kind in ("???",)
            if collapsed and not self._extent_has_code(index, indent):
                out += [self.prefix() + f"<details><summary>{title}</summary>", self.prefix().rstrip()]
                self.stack.append((indent, "details"))
            else:
                out += [self.prefix() + f"> **{title}**" if title else self.prefix() + ">"]
                self.stack.append((indent, "quote"))
                out.append(self.prefix().rstrip())
            return out
        return out + [(self.prefix() + body).rstrip() if body.strip() else self.prefix().rstrip()]

    def links(self, text: str) -> str:
        """Point relative links at the published site and turn figures into attachments."""

        def replace(match: re.Match) -> str:
            url, title = match.group("url"), match.group("title") or ""
            if EXTERNAL.match(url):
                return match.group(0)
            path, _, fragment = url.partition("#")
            if match.group("bang"):
                if fragment == "only-dark":  # the light variant stands for both
                    return ""
                target = posixpath.normpath(posixpath.join(posixpath.dirname(self.src_uri), path))
                data = self.image_data(target) if self.image_data else None
                if data is not None:
                    name = posixpath.basename(target)
                    mime = "image/svg+xml" if name.endswith(".svg") else "image/png"
                    self.attachments[name] = {mime: base64.b64encode(data).decode("ascii")}
                    return f"![{match.group('text')}](attachment:{name}{title})"
                return f"![{match.group('text')}]({self.site_url.rstrip('/')}/{target}{title})"
            if not path:
                absolute = page_url(self.src_uri, self.site_url)
            else:
                target = posixpath.normpath(posixpath.join(posixpath.dirname(self.src_uri), path))
                absolute = page_url(target, self.site_url) if target.endswith(".md") else f"{self.site_url.rstrip('/')}/{target}"
            return f"[{match.group('text')}]({absolute}{'#' + fragment if fragment else ''}{title})"

        return LINK.sub(replace, text)


def chapter_notebook(markdown: str, src_uri: str, site_url: str = "", repo_url: str = "", image_data=None):
    """The notebook of one chapter: ``markdown`` is the page source, ``src_uri`` its path under docs/.

    ``image_data(path)`` may return the bytes of an image of the site (for attachments), or None.
    Each code cell's metadata records the page line of its block (``"page_line"``).
    """
    markdown = markdown.replace("\r\n", "\n")
    front = re.match(r"^---\n.*?\n---\n", markdown, re.S)
    if front:  # keep line numbers: blank out the front matter
        markdown = "\n" * front.group(0).count("\n") + markdown[front.end():]
    lines = markdown.split("\n")
    examples, _ = pair_examples(markdown)
    by_line = {example.code.open_line: example for example in examples}
    verbatim = {n for fence in parse_fences(markdown) for n in range(fence.open_line, fence.close_line + 1)}
    prose = _Prose(lines, src_uri, site_url, image_data, set(by_line))
    expander = _snippets()

    cells, buffer = [], []

    def flush():
        kept, run = [], []  # links may span lines: convert each run of lines outside fences at once
        for text, in_fence in buffer + [("", True)]:
            if in_fence:
                kept += prose.links("\n".join(run)).split("\n") if run else []
                run = []
                kept.append(text)
            else:
                run.append(text)
        kept.pop()
        buffer.clear()
        while kept and not kept[0].strip(" >"):  # a block quote that a code cell interrupted
            kept.pop(0)
        while kept and not kept[-1].strip(" >"):
            kept.pop()
        text = "\n".join(kept)
        if text.strip(" >\n"):
            cell = _cell("markdown", text)
            used = {name: data for name, data in prose.attachments.items() if f"attachment:{name}" in text}
            if used:
                cell.attachments = used
            cells.append(cell)

    line_no = 1
    while line_no <= len(lines):
        example = by_line.get(line_no)
        if example is None:
            if line_no not in verbatim and SNIPPET_PROSE.match(lines[line_no - 1]):
                buffer.extend((text, False) for text in expander.expand([lines[line_no - 1]]))
            else:
                in_fence = line_no in verbatim
                buffer.extend((text, in_fence) for text in prose.line(line_no - 1, in_fence))
            line_no += 1
            continue
        buffer.extend((text, False) for text in prose.close_to(len(example.code.indent)))
        flush()
        code = "\n".join(expander.expand(example.code.body)).strip("\n")
        cell = _cell("code", code)
        cell.metadata["page_line"] = example.code.open_line
        if _in_collapsed(lines, line_no):
            cell.metadata["jupyter"] = {"source_hidden": True}
            cell.metadata["tags"] = ["solution"]
        if example.output is not None:
            printed = "\n".join(expander.expand(example.output.body)).strip("\n")
            cell.outputs = [nbformat.from_dict({"output_type": "stream", "name": "stdout", "text": printed + "\n"})]
        cells.append(cell)
        line_no = (example.output or example.code).close_line + 1
    buffer.extend((text, False) for text in prose.close_to(0))
    flush()

    title = next((l[2:].strip() for l in lines if l.startswith("# ")), src_uri)
    uses_library = any("transformer_math" in cell.source for cell in cells if cell.cell_type == "code")
    note = (
        f"*This notebook is the chapter [{title}]({page_url(src_uri, site_url)}) of "
        "Mathematics for Transformers. The outputs under the code cells are the ones the page shows, "
        "checked by the guide's tests.*"
    )
    if uses_library and repo_url:
        note += f" *The code uses the guide's small library: `pip install git+{repo_url}`.*"
    cells.insert(0, _cell("markdown", note))
    for number, cell in enumerate(cells):  # stable ids: the same page gives the same notebook
        cell.id = f"cell-{number}"
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata.update(
        {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        }
    )
    return notebook


def _cell(kind: str, source: str):
    """A cell without nbformat's per-cell schema validation (a third of the time); tests validate."""
    cell = {"cell_type": kind, "id": "", "metadata": {}, "source": source}
    if kind == "code":
        cell.update(outputs=[], execution_count=None)
    return nbformat.from_dict(cell)


SNIPPET_PROSE = re.compile(r'^-{1,}8<-{1,}[ \t]+"?[^"\s]+"?[ \t]*$')


def _in_collapsed(lines: list[str], line_no: int) -> bool:
    """Whether page line ``line_no`` sits inside a collapsed ``???`` block."""
    indent = _indent_of(lines[line_no - 1])
    for index in range(line_no - 2, -1, -1):
        text = lines[index]
        if not text.strip() or _indent_of(text) >= indent:
            continue
        indent = _indent_of(text)
        opener = BLOCK_OPENER.match(text)
        if opener and opener.group("kind") == "???":
            return True
        if indent == 0:
            return False
    return False


def notebook_path(src_uri: str) -> str:
    return re.sub(r"\.(md|py)$", ".ipynb", src_uri)


def lab_notebook(path: Path):
    """The downloadable notebook of a lab: the jupytext source, without outputs."""
    import jupytext

    notebook = jupytext.read(path)
    notebook.metadata.pop("jupytext", None)
    return notebook


# --- MkDocs events ------------------------------------------------------------------------------


def on_config(config):
    if CSS_PATH not in config.extra_css:
        config.extra_css.append(CSS_PATH)
    return config


def on_files(files, config):
    def image_data(path: str):
        found = files.get_file_from_path(path)
        return None if found is None else found.content_bytes

    inputs = _inputs_hash(config)
    NOTEBOOK_CACHE.mkdir(parents=True, exist_ok=True)
    used = set()
    for file in list(files):
        if not (CHAPTER.match(file.src_uri) or (LAB.match(file.src_uri) and file.abs_src_path)):
            continue
        source = file.content_bytes
        cached = NOTEBOOK_CACHE / (hashlib.sha256(inputs.encode() + file.src_uri.encode() + source).hexdigest()[:24] + ".ipynb")
        used.add(cached.name)
        if not cached.exists():
            if CHAPTER.match(file.src_uri):
                notebook = chapter_notebook(
                    file.content_string, file.src_uri, config.site_url or "", config.repo_url or "", image_data
                )
            else:
                notebook = lab_notebook(Path(file.abs_src_path))
            cached.write_text(nbformat.writes(notebook), encoding="utf-8")
        files.append(File.generated(config, notebook_path(file.src_uri), content=cached.read_text(encoding="utf-8")))
    for stale in NOTEBOOK_CACHE.glob("*.ipynb"):
        if stale.name not in used:
            stale.unlink()
    return files


def _inputs_hash(config) -> str:
    """What a page's notebook depends on besides the page: this hook and the block reader, the library
    and the snippets its code cells include, the site's images, and the site and repository URLs.
    Pages include snippets only from src/ and snippets/; a page that included one from elsewhere would
    need that folder added here."""
    digest = hashlib.sha256(f"{config.site_url}|{config.repo_url}".encode())
    sources = [Path(__file__), ROOT / "tools" / "docblocks.py"]
    for folder in (ROOT / "src", ROOT / "snippets", Path(config.docs_dir)):
        sources += sorted(
            path for path in folder.rglob("*")
            if path.is_file() and path.suffix not in {".md", ".pyc"} and "__pycache__" not in path.parts
        )
    for path in sources:
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def on_page_context(context, page, config, nav):
    if CHAPTER.match(page.file.src_uri) or LAB.match(page.file.src_uri):
        page.nb_url = get_relative_url(notebook_path(page.file.src_uri), page.url)
    return context


def on_page_content(html, page, config, files):
    if LAB.match(page.file.src_uri):
        return cached_theme_notebook_html(html)
    return html


def cached_theme_notebook_html(html: str) -> str:
    """:func:`theme_notebook_html`, kept in ``.cache/labs-html`` by a hash of its input and of this file:
    parsing a lab's HTML is most of the cost of a rebuild in which the lab did not change."""
    key = hashlib.sha256(html.encode() + Path(__file__).read_bytes()).hexdigest()[:24]
    cached = LAB_HTML_CACHE / f"{key}.html"
    if cached.exists():
        return cached.read_text(encoding="utf-8")
    result = theme_notebook_html(html)
    LAB_HTML_CACHE.mkdir(parents=True, exist_ok=True)
    cached.write_text(result, encoding="utf-8")
    return result


# --- lab pages ----------------------------------------------------------------------------------


def theme_notebook_html(html: str) -> str:
    """Reshape nbconvert's HTML into the theme's own blocks and drop its CSS, scripts and widgets.

    Code cells become ``<div class="highlight"><pre><code>`` (the theme highlights them and adds its
    copy button), printed output becomes the guide's ``language-output`` block, heading anchors become
    the theme's ``headerlink``. Nothing else of JupyterLab's styling is kept.
    """
    from bs4 import BeautifulSoup, Comment

    soup = BeautifulSoup(html, "html.parser")
    for node in soup.find_all(["style", "script", "clipboard-copy"]):
        node.decompose()
    for node in soup.find_all(string=lambda text: isinstance(text, Comment)):
        node.extract()
    for node in soup.select(".zeroclipboard-container, .clipboard-copy-txt, .jp-Collapser, .jp-InputPrompt, .jp-OutputPrompt"):
        node.decompose()
    for block in soup.select("div.highlight-ipynb"):
        # Not "language-python": a lab's cells run in order in one kernel, unlike the chapters'
        # blocks, each of which runs alone; tests that copy and run page blocks should not take them.
        block["class"] = ["highlight", "notebook-cell"]
        _wrap_pre_in_code(soup, block.pre)
    for block in soup.select(".jp-RenderedMarkdown div.highlight"):  # code in Markdown cells (solutions)
        _wrap_pre_in_code(soup, block.pre)
    for output in soup.select("div.jp-RenderedText"):
        pre = output.find("pre")
        if pre is None:
            continue
        stderr = output.get("data-mime-type") == "application/vnd.jupyter.stderr"
        output["class"] = output.get("class", []) + ["language-output", "highlight"] + (["nb-stderr"] if stderr else [])
        _wrap_pre_in_code(soup, pre)
    for node in soup.select("[tabindex]"):  # JupyterLab's focusable cells: noise for keyboard users here
        del node["tabindex"]
    for anchor in soup.select("a.anchor-link"):
        anchor["class"] = ["headerlink"]
        anchor["title"] = "Permanent link"
    # nbconvert puts a display formula that stands alone in a paragraph; lift it out of the <p>.
    for paragraph in soup.find_all("p"):
        children = [child for child in paragraph.contents if not (isinstance(child, str) and not child.strip())]
        if len(children) == 1 and getattr(children[0], "name", None) == "div":
            paragraph.replace_with(children[0])
    return str(soup)


def _wrap_pre_in_code(soup, pre) -> None:
    if pre is None or pre.find("code", recursive=False) is not None:
        return
    code = soup.new_tag("code")
    for child in list(pre.contents):
        if getattr(child, "name", None) == "span" and not child.get_text() and not child.attrs:
            child.extract()  # pygments' empty leading <span></span>
            continue
        code.append(child.extract())
    pre.append(code)
