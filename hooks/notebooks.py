"""Every chapter and lab as a downloadable notebook, and the labs' pages in the theme's own blocks.

A chapter's notebook (every page of ``docs/part-*/`` but the index pages) is made from its Markdown by
``tools/chapter_notebook.py``, cached (``tools/cache.py``) until a file it was made from changes. A lab
(``docs/labs/*.py``, jupytext) is its own notebook, downloaded with its blanks; the site shows it solved
(``tools/labs.py``): mkdocs-jupyter renders the solved copy, and this reshapes that HTML so it needs
neither JupyterLab's CSS nor any script, and writes its formulas as pymdownx.arithmatex writes a chapter's
(hooks/katex_render.py typesets both alike). ``page.nb_url`` is the download button's link.

A lab's download installs the library in its first cell; the install line is pinned there to the edition the
site is built from (hooks/edition.py names it), so the checks it imports are the ones the lab was written for.
The Pages workflow pushes the lab notebooks, blanks and pin included, to the branch ``notebooks``
(:data:`NOTEBOOKS_BRANCH`), and each lab's page links to that copy on Colab (:func:`colab_url`).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import jupytext
import nbformat
from bs4 import BeautifulSoup, Comment, NavigableString
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url
from mkdocs.utils.templates import TemplateContext

from tools import chapters
from tools.cache import Cache, file_hash, file_sources, files_opened, module_sources
from tools.chapter_notebook import chapter_notebook
from tools.edition import REPOSITORY, UNPINNED
from tools.labs import solved_page

ROOT = Path(__file__).resolve().parent.parent
CHAPTER = re.compile(r"^part-[^/]+/(?!index\.md$)[^/]+\.md$")
LAB = re.compile(r"^labs/[^/_][^/]*\.py$")
CSS_PATH = "assets/stylesheets/notebooks.css"
NOTEBOOKS_BRANCH = "notebooks"  # .github/workflows/pages.yml pushes site/notebooks/lab-*.ipynb there
COLAB = "https://colab.research.google.com/github/"
JUPYTER_CONFIG = ROOT / "tools" / "jupyter"  # names tools/kernels.py's kernel manager for nbclient
SOLVED_LABS = ROOT / ".cache" / "solved" / "labs"  # what mkdocs-jupyter runs and renders; "labs/" for its include
# nbconvert leaves a Markdown cell's formulas as MathJax reads them: $$...$$, \begin{env}...\end{env}, $...$.
NOTEBOOK_MATH = re.compile(
    r"\$\$(?P<display>.+?)\$\$|(?P<environment>\\begin\{(?P<name>[^}]+)\}.*?\\end\{(?P=name)\})|\$(?P<inline>.+?)\$",
    re.S,
)


# --- MkDocs events ------------------------------------------------------------------------------


def on_config(config: MkDocsConfig) -> MkDocsConfig | None:
    """The notebooks' stylesheet; the labs' kernels on Unix sockets (tools/kernels.py), before any starts."""
    paths = os.environ.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep)
    if str(JUPYTER_CONFIG) not in paths:
        os.environ["JUPYTER_CONFIG_PATH"] = os.pathsep.join(filter(None, [str(JUPYTER_CONFIG), *paths]))
    if CSS_PATH not in config.extra_css:
        config.extra_css.append(CSS_PATH)
    return config


def on_files(files: Files, *, config: MkDocsConfig) -> Files | None:
    """A notebook of every chapter and lab (cached), and the solved copy of each lab for mkdocs-jupyter."""

    def image_data(path: str):
        found = files.get_file_from_path(path)
        return None if found is None else found.content_bytes

    pin = config.extra.get("edition", {}).get("pin")
    cache = Cache("notebooks", salt=f"{config.site_url}|{config.repo_url}|{pin}")
    for file in list(files):
        if not (CHAPTER.match(file.src_uri) or LAB.match(file.src_uri)):
            continue
        stored = cache.get(file.src_uri)
        if stored is None:
            with files_opened() as opened:  # the snippets a chapter's blocks include
                if CHAPTER.match(file.src_uri):
                    site_url, repo_url = config.site_url or "", config.repo_url or ""
                    notebook = chapter_notebook(file.content_string, file.src_uri, site_url, repo_url, image_data)
                else:  # a lab: its jupytext source, without outputs, installing this edition of the library
                    notebook = pinned(jupytext.reads(file.content_string, fmt="py:percent"), pin)
                    notebook.metadata.pop("jupytext", None)
            read = _sources(file) | opened
            key = hashlib.sha256("".join(sorted(f"{path}{file_hash(path)}" for path in read)).encode()).hexdigest()
            stored = {"notebook": nbformat.writes(notebook), "key": key[:24]}
            cache.put(file.src_uri, stored, read)
        files.append(File.generated(config, notebook_path(file.src_uri), content=stored["notebook"]))
        if LAB.match(file.src_uri):
            file.abs_src_path = _solved_lab(file, stored["key"], colab_url(file.src_uri, config.repo_url or ""))
    return files


def on_page_context(
    context: TemplateContext, *, page: Page, config: MkDocsConfig, nav: Navigation
) -> TemplateContext | None:
    if CHAPTER.match(page.file.src_uri) or LAB.match(page.file.src_uri):
        page.nb_url = get_relative_url(notebook_path(page.file.src_uri), page.url)
    return context


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str | None:
    """A lab's page in the theme's own blocks (:func:`theme_notebook_html`), cached."""
    if not LAB.match(page.file.src_uri):
        return html
    # Search finds the chapter a lab practises, and the Practice page; the labs were 8 KB of every page's index.
    page.meta.setdefault("search", {"exclude": True})
    # Cached: reshaping the labs takes about half a second of every build (budget: 3x a bare MkDocs build).
    cache = Cache("labs-html", salt=hashlib.sha256(html.encode()).hexdigest())
    reshaped = cache.get(page.file.src_uri)
    if reshaped is None:
        reshaped = theme_notebook_html(html)
        cache.put(page.file.src_uri, reshaped, [Path(__file__)])
    return reshaped


# --- notebooks ---------------------------------------------------------------------------------


def notebook_path(src_uri: str) -> str:
    """``part-2/softmax.md`` -> ``notebooks/part-2-softmax.ipynb``, ``labs/softmax.py`` -> ``notebooks/lab-softmax.ipynb``:
    a downloaded file keeps its name, so two pages' notebooks must not share one."""
    return "notebooks/" + re.sub(r"^labs/", "lab-", re.sub(r"\.(md|py)$", "", src_uri)).replace("/", "-") + ".ipynb"


def pinned(notebook, pin: str | None):
    """The notebook with every ``pip install git+…`` of the library in its code pinned to ``pin`` (a tag or commit)."""
    if pin:
        for cell in notebook.cells:
            if cell.cell_type == "code":
                cell.source = UNPINNED.sub(f"{REPOSITORY}@{pin}", cell.source)
    return notebook


def colab_url(src_uri: str, repo_url: str) -> str:
    """The lab's notebook, as the Pages workflow pushes it to the branch ``notebooks``, opened in Colab."""
    repository = repo_url.rstrip("/").removeprefix("https://github.com/")
    return f"{COLAB}{repository}/blob/{NOTEBOOKS_BRANCH}/{Path(notebook_path(src_uri)).name}"


def _solved_lab(file: File, key: str, colab: str) -> str:
    """Write the lab with its solutions filled in, when its download's ``key`` (the lab and all it depends on)
    changed. mkdocs-jupyter caches its run by the file's content, so the key goes into the notebook's
    metadata: a library change runs the lab again; an unchanged file keeps `mkdocs serve` from seeing an edit."""
    path = SOLVED_LABS / Path(file.src_uri).name
    if not path.exists() or key not in path.read_text(encoding="utf-8"):  # however YAML quotes it
        notebook = solved_page(jupytext.reads(file.content_string, fmt="py:percent"), colab)
        notebook.metadata["built_from"] = key
        notebook.metadata["jupytext"] = {"notebook_metadata_filter": "built_from"}  # jupytext drops it otherwise
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(jupytext.writes(notebook, fmt="py:percent"), encoding="utf-8")
    return str(path)


def _sources(file: File) -> set[Path]:
    """What a page's notebook is made from, besides the snippets it opens: the page, this hook and the notebook
    maker with what they import, and a chapter's module (its figures are drawn into the notebook)."""
    page = Path(file.abs_src_path)
    if LAB.match(file.src_uri):
        return (
            set(file_sources(page)) | module_sources("tools.labs") | {Path(__file__).resolve()}
        )  # and its run on what it imports
    return (
        {page, Path(__file__).resolve()}
        | module_sources("tools.chapter_notebook")
        | module_sources(chapters.module_of(file.src_uri))
    )


# --- labs ---------------------------------------------------------------------------------------


def theme_notebook_html(html: str) -> str:
    """nbconvert's HTML in the theme's own blocks, without its CSS, scripts and widgets: code cells as
    ``<div class="highlight"><pre><code>`` (the theme highlights them and adds its copy button), printed
    output as the guide's ``language-output`` blocks, heading anchors as the theme's ``headerlink``, formulas
    as arithmatex placeholders."""
    soup = BeautifulSoup(html, "html.parser")
    for node in soup.find_all(string=lambda text: isinstance(text, Comment)):
        node.extract()
    for node in soup.select(
        "style, script, clipboard-copy, .zeroclipboard-container, .clipboard-copy-txt,"
        " .jp-Collapser, .jp-InputPrompt, .jp-OutputPrompt"
    ):
        node.decompose()
    for block in soup.select("div.highlight-ipynb"):
        # Not "language-python": a lab's cells run in order in one kernel, unlike the chapters'
        # blocks, each of which runs alone; tests that copy and run page blocks should not take them.
        block["class"] = ["highlight", "notebook-cell"]
    for output in soup.select("div.jp-RenderedText:has(> pre)"):
        stderr = ["nb-stderr"] if output.get("data-mime-type") == "application/vnd.jupyter.stderr" else []
        output["class"] = output.get("class", []) + ["language-output", "highlight"] + stderr
    # Code cells, code in Markdown cells (the solutions) and printed output: <pre><code>, as the theme's.
    for pre in soup.select(
        "div.notebook-cell > pre, .jp-RenderedMarkdown div.highlight > pre, div.jp-RenderedText > pre"
    ):
        _wrap_pre_in_code(soup, pre)
    for node in soup.select("[tabindex]"):  # JupyterLab's focusable cells: noise for keyboard users here
        del node["tabindex"]
    _arithmatex_placeholders(soup)
    for anchor in soup.select("a.anchor-link"):
        anchor.attrs.update({"class": ["headerlink"], "title": "Permanent link"})
    # nbconvert puts a display formula that stands alone in a paragraph; lift it out of the <p>.
    for paragraph in soup.find_all("p"):
        children = [child for child in paragraph.contents if not (isinstance(child, str) and not child.strip())]
        if len(children) == 1 and getattr(children[0], "name", None) == "div":
            paragraph.replace_with(children[0])
    return str(soup)


def _wrap_pre_in_code(soup, pre) -> None:
    if pre.find("code", recursive=False) is not None:
        return
    for span in pre.find_all("span", recursive=False):
        if not span.attrs and not span.get_text():
            span.extract()  # pygments' empty leading <span></span>
    code = soup.new_tag("code")
    code.extend(list(pre.contents))
    pre.append(code)


def _arithmatex_placeholders(soup: BeautifulSoup) -> None:
    """The Markdown cells' formulas as pymdownx.arithmatex (generic mode) leaves a chapter's: ``$x$`` becomes
    ``<span class="arithmatex">\\(x\\)</span>``, ``$$x$$`` and a LaTeX environment
    ``<div class="arithmatex">\\[x\\]</div>``. Code is left alone."""
    for cell in soup.select(".jp-RenderedMarkdown"):
        for text in cell.find_all(string=NOTEBOOK_MATH):
            if text.find_parent(["pre", "code"]) is not None:
                continue
            parts, end = [], 0
            for match in NOTEBOOK_MATH.finditer(text):
                parts.append(NavigableString(text[end : match.start()]))
                if match.group("inline") is not None:
                    formula = soup.new_tag(
                        "span", attrs={"class": "arithmatex"}, string=f"\\({match.group('inline')}\\)"
                    )
                else:
                    tex = match.group("display") if match.group("display") is not None else match.group("environment")
                    formula = soup.new_tag("div", attrs={"class": "arithmatex"}, string=f"\\[{tex}\\]")
                parts.append(formula)
                end = match.end()
            parts.append(NavigableString(text[end:]))
            text.replace_with(*(part for part in parts if part != ""))
