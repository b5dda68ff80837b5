"""The notebooks in the built site: every chapter and lab offers its download, a chapter's notebook is the
generator's, and each lab's page shows its solved run (the build ran it), stays light and has KaTeX formulas
and the guide's own code blocks. How the notebooks themselves run is tests/build/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat

from hooks import notebooks as hook
from tests.build.test_labs import LABS, VERDICT, check_calls, load
from tests.build.test_notebooks import CHAPTERS, DOCS, notebook_of
from tools.labs import exercises, solution

ROOT = Path(__file__).resolve().parents[2]


DOWNLOAD_BUTTON = re.compile(r'<a href="([^"]+\.ipynb)" download[^>]*aria-label="Download')


def test_every_chapter_and_lab_page_offers_its_notebook(built_site):
    pages = [page.relative_to(DOCS).as_posix() for page in CHAPTERS]
    pages += [f"labs/{lab.name}" for lab in sorted((DOCS / "labs").glob("*.py"))]
    links = []
    for src in pages:
        html = (built_site / re.sub(r"\.(md|py)$", "", src) / "index.html").read_text(encoding="utf-8")
        link = DOWNLOAD_BUTTON.search(html)
        assert link, f"{src}: no download button"
        target = (built_site / re.sub(r"\.(md|py)$", "", src) / link.group(1)).resolve()
        assert target.is_file(), f"{src}: {link.group(1)} is not in the site"
        nbformat.validate(nbformat.reads(target.read_text(encoding="utf-8"), as_version=4))
        links.append(link.group(1))
    names = [Path(link).name for link in links]
    assert len(set(names)) == len(names), f"downloads share a file name: {sorted(names)}"
    for other in ["index.html", "reference/index.html", "contributing/index.html"]:  # their prose may name .ipynb
        html = (built_site / other).read_text(encoding="utf-8")
        assert not DOWNLOAD_BUTTON.search(html) and 'download class="md-content__button' not in html, other


def test_chapter_notebook_in_the_site_matches_the_generator(built_site):
    page = CHAPTERS[0]
    src = page.relative_to(DOCS).as_posix()
    built = json.loads((built_site / hook.notebook_path(src)).read_text(encoding="utf-8"))
    code = [cell for cell in built["cells"] if "page_line" in cell["metadata"]]
    expected = [cell for cell in notebook_of(page).cells if "page_line" in cell.metadata]
    assert ["".join(cell["source"]) for cell in code] == [cell.source for cell in expected]


def first_load_gzip_bytes(site: Path, page: str) -> int:
    """gzip bytes of a page's HTML plus every stylesheet and script it loads from the site."""
    import gzip

    html_path = site / page / "index.html"
    html = html_path.read_text(encoding="utf-8")
    refs = re.findall(r'<link\b[^>]*\brel="stylesheet"[^>]*\bhref="([^"]+)"', html)
    refs += re.findall(r'<link\b[^>]*\bhref="([^"]+)"[^>]*\brel="stylesheet"', html)
    refs += re.findall(r'<script\b[^>]*\bsrc="([^"]+)"', html)
    total = len(gzip.compress(html.encode("utf-8"), 6))
    for ref in dict.fromkeys(refs):
        total += len(gzip.compress((html_path.parent / ref.split("?")[0]).resolve().read_bytes(), 6))
    return total


def test_lab_pages_weigh_no_more_than_twice_a_chapter(built_site):
    chapters = sorted(
        page.relative_to(ROOT / "docs").with_suffix("").as_posix()
        for page in (ROOT / "docs").glob("part-*/*.md")
        if page.name != "index.md"
    )
    chapter_weights = sorted(first_load_gzip_bytes(built_site, page) for page in chapters)
    median = chapter_weights[len(chapter_weights) // 2]
    for lab in LABS:
        weight = first_load_gzip_bytes(built_site, f"labs/{lab.stem}")
        assert weight <= 2 * median, f"{lab.stem}: {weight} gzip bytes, a median chapter {median}"


def test_lab_pages_show_the_solved_run_and_the_download_keeps_the_blanks(built_site):
    from bs4 import BeautifulSoup

    for lab in LABS:
        notebook = load(lab)
        soup = BeautifulSoup((built_site / "labs" / lab.stem / "index.html").read_text(encoding="utf-8"), "html.parser")
        assert "This page shows the lab solved" in soup.get_text(), f"{lab.stem}: no note that the page is solved"
        printed = "\n".join(block.get_text() for block in soup.select(".language-output"))
        shown = [match.group("verdict") for match in VERDICT.finditer(printed)]
        assert shown == ["Correct"] * check_calls(notebook), f"{lab.stem}: the page shows {shown}"
        cells = [" ".join(cell.get_text().split()) for cell in soup.select(".celltag_solution .highlight")]
        solutions = [" ".join(solution(notebook, index).split()) for index in exercises(notebook)]
        assert cells == solutions, f"{lab.stem}: the solution cells differ from the reference solutions"
        folded = [details.find("summary").get_text() for details in soup.select("details")]
        assert all(text.startswith("Hint") for text in folded), (
            f"{lab.stem}: the folded solutions are shown twice ({folded})"
        )
        download = nbformat.reads((built_site / "notebooks" / f"lab-{lab.stem}.ipynb").read_text("utf-8"), 4)
        blanks = [download.cells[index].source for index in exercises(download)]
        assert blanks == [notebook.cells[index].source for index in exercises(notebook)], lab.stem
        assert all("..." in blank for blank in blanks), f"{lab.stem}: a downloaded exercise has no blank"
        install = next(cell.source for cell in download.cells if cell.cell_type == "code")
        assert "mathematics-for-transformers@" in install, f"{lab.stem}: the download's install line is not pinned"


def test_lab_pages_have_rendered_math_and_no_notebook_css_or_scripts(built_site):
    for lab in LABS:
        html = (built_site / "labs" / lab.stem / "index.html").read_text(encoding="utf-8")
        content = html[html.index('<div class="jupyter-wrapper">') :]
        content = content[: content.index("</article>")]
        assert 'class="katex' in content, f"{lab.stem}: no KaTeX"
        assert not re.search(r'class="arithmatex">\s*\\[(\[]', content), f"{lab.stem}: a formula left unrendered"
        assert "$" not in re.sub(r"<(pre|code)\b.*?</\1>", "", content, flags=re.S), f"{lab.stem}: raw $ math"
        assert "<style" not in content and "<script" not in content, f"{lab.stem}: inline CSS or script"
        assert "mathjax" not in html.lower(), f"{lab.stem}: MathJax"
        assert "language-output" in content, f"{lab.stem}: outputs are not the guide's output blocks"
