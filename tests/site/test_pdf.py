"""The guide's PDF read as a reader reads a book (tools/pdf.py): a title page naming the edition, a contents
whose page numbers lead to the chapters, one bookmark per part and chapter, no heading left alone at the foot
of a page, and a file small enough to download."""

from __future__ import annotations

import functools
import itertools
import re
from pathlib import Path

import pytest

from tests.background import background, result
from tests.site import pdf_readers
from tools import mkdocs_yml
from tools.pdf import PDF_NAME

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
MAX_BYTES = 8 * 1024 * 1024
PARTS = sorted(DOCS.glob("part-*/index.md"))
CHAPTERS = [DOCS / "index.md", DOCS / "what-a-gpt-computes.md"] + sorted(
    path for path in DOCS.glob("part-*/*.md") if path.name != "index.md"
)
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def words(text: str) -> str:
    return " ".join(text.split())


def title(page: Path) -> str:
    return re.search(r"^# (.+)$", FENCE.sub("", page.read_text(encoding="utf-8")), re.M).group(1)


def headings() -> set[str]:
    """The text of every section heading of the printed chapters, as pypdf extracts it (no Markdown)."""
    found = set()
    for page in PARTS + CHAPTERS:
        for line in re.findall(r"^#{2,6} (.+)$", FENCE.sub("", page.read_text(encoding="utf-8")), re.M):
            line = re.sub(r"\{[^}]*\}\s*$", "", line)  # attribute lists
            if "$" not in line:  # a formula's text comes out of KaTeX's layout, not as typed
                found.add(words(line.replace("`", "").replace("*", "")))
    return found


@pytest.fixture(scope="module")
def pdf(built_pdf) -> Path:
    assert built_pdf.is_file(), f"no {PDF_NAME}: is Chromium installed? (python3 dev.py test installs it)"
    return built_pdf


@pytest.fixture(scope="module")
def readers() -> None:
    missing = pdf_readers.missing_readers()
    assert not missing, f"the PDF readers' Debian packages are missing: {missing} (python3 dev.py test installs them)"


@background(nice=5)
def pdf_read() -> tuple[list[str] | None, list[str]]:
    """What the PDF readers say of the book (None without them: ``readers`` names what is missing), and the text
    of each page: read the moment the PDF is printed, while the browsers still read the site."""
    book = result("built_pdf")
    texts = pdf_readers.page_texts(book)
    if pdf_readers.missing_readers():
        return None, texts
    return pdf_readers.problems(book, mkdocs_yml.load()["site_name"]), texts


def test_the_pdf_opens_in_qpdf_poppler_and_mupdf_with_every_page_drawn(pdf, readers, pdf_read):
    """What readers use, not pypdf alone: pypdf opened a book whose swapped-in pages poppler and MuPDF refused."""
    assert pdf_read[0] == []


def test_a_pdf_with_a_broken_page_is_refused_by_the_readers_check(pdf, readers, tmp_path):
    """The book's first pages with the title page's content stream written into its page (a stream must be an
    indirect object: the fault the contents swap once made), and the same pages intact."""
    import pypdf
    from pypdf.generic import NameObject

    writer = pypdf.PdfWriter()
    for page in pypdf.PdfReader(pdf).pages[:3]:
        writer.add_page(page)
    for page in writer.pages:  # links into the rest of the book, which these pages leave out
        page.pop("/Annots", None)
    intact, broken = tmp_path / "intact.pdf", tmp_path / "broken.pdf"
    writer.write(intact)
    writer.pages[0][NameObject("/Contents")] = writer.pages[0]["/Contents"]  # resolved: the stream itself
    writer.write(broken)
    title = mkdocs_yml.load()["site_name"]
    assert pdf_readers.problems(intact, title) == []
    found = pdf_readers.problems(broken, title)
    for reader in ("qpdf", "pdftoppm", "mutool draw", "pdftotext"):
        assert any(problem.startswith(reader) for problem in found), f"{reader} did not refuse it: {found}"


@pytest.fixture(scope="module")
def reader(pdf):
    import pypdf

    return pypdf.PdfReader(pdf)


@pytest.fixture(scope="module")
def texts(pdf_read) -> list[str]:
    return pdf_read[1]


def test_the_pdf_opens_on_a_title_page_that_names_the_edition(texts, built_site):
    """The same edition as the site's footer (hooks/edition.py): the library's version, the commit, its date."""
    footer = (built_site / "index.html").read_text(encoding="utf-8")
    footer = words(re.sub(r"<[^>]+>", "", footer[footer.index("md-copyright__edition") :]))
    named = re.search(r"Edition: (library [\d.]+(?:, commit [0-9a-f]+)?, \d{4}-\d\d-\d\d)", footer)
    assert named, f"the site's footer names no edition: {footer[:200]}"
    first = words(texts[0])
    assert first.startswith("Mathematics for Transformers"), first[:200]
    for wanted in ["Edition " + named.group(1), "MIT", "transformer-math.github.io", "pip install"]:
        assert wanted in first, f"the title page does not say {wanted!r}: {first[:600]}"


def test_every_install_line_in_the_pdf_pins_the_edition(texts, built_site):
    """hooks/edition.py pins the pages' install lines, the print page's too (it is made before the hook runs)."""
    if "commit" not in (built_site / "index.html").read_text(encoding="utf-8").split("md-copyright__edition")[1][:400]:
        pytest.skip("built outside a git checkout: the install line stays unpinned")
    text = "".join("".join(texts).split())  # a long line wraps anywhere
    lines = text.count("pipinstallgit+https://github.com/transformer-math/mathematics-for-transformers")
    assert lines >= 5 and text.count("mathematics-for-transformers@") == lines


@functools.cache
def _contents(texts: tuple[str, ...]) -> str:
    def listing(text: str) -> bool:  # a page of the contents that runs on: every line ends with a page number
        lines = [line for line in text.splitlines() if line.strip()]
        return bool(lines) and all(re.search(r"\d\s*$", line) for line in lines)

    first = next((i for i, text in enumerate(texts[1:6], 1) if words(text).startswith("Contents")), None)
    assert first is not None, "no page after the title page starts with 'Contents'"
    pages = [words(texts[first])] + [words(text) for text in itertools.takewhile(listing, texts[first + 1 :])]
    return " ".join(pages)


def test_the_contents_page_numbers_lead_to_each_part_and_chapter(texts):
    contents = _contents(tuple(texts))
    for page in PARTS + CHAPTERS:
        name = title(page)
        entry = re.search(re.escape(words(name)) + r" (\d+)\b", contents)
        assert entry, f"{page.relative_to(DOCS)}: '{name}' has no page number in the contents"
        number = int(entry.group(1))
        assert 1 <= number <= len(texts), f"'{name}': page {number} of {len(texts)}"
        opening = words(texts[number - 1])[:400]  # after the running heads, the page opens with the title
        assert words(name) in opening, f"contents: '{name}' on page {number}, which opens: {opening[:200]}"


def _outline(items, depth=0):
    for item in items:
        if isinstance(item, list):
            yield from _outline(item, depth + 1)
        else:
            yield item.title, depth


def test_one_bookmark_per_part_and_chapter(reader):
    titles = [words(name) for name, _ in _outline(reader.outline)]
    for page in PARTS + CHAPTERS:
        name = words(title(page))
        assert titles.count(name) == 1, f"'{name}': {titles.count(name)} bookmarks, not one"


def test_no_page_ends_with_a_heading(texts):
    sections = headings()
    assert len(sections) > 100
    alone = []
    for number, text in enumerate(texts, start=1):
        lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().isdigit()]
        tail = {words(" ".join(lines[-size:])) for size in (1, 2)} if lines else set()
        if tail & sections:
            alone.append(f"page {number}: {sorted(tail & sections)[0]}")
    assert not alone, "pages ending with a heading: " + "; ".join(alone)


def test_the_pdf_is_at_most_8_mb(pdf):
    size = pdf.stat().st_size
    assert size <= MAX_BYTES, f"{PDF_NAME} is {size / 2**20:.1f} MB; the budget is {MAX_BYTES / 2**20:.0f} MB"


def test_the_pdf_is_printed_from_a_relative_site_folder(tmp_path, monkeypatch):
    """`python3 dev.py build` (and so the Pages workflow) passes "site": Chromium needs an absolute file:// address."""
    import pypdf

    from tools.pdf import PDF_NAME, find_browser, make_pdf

    if find_browser() is None:
        pytest.skip("no Chromium (python3 dev.py test installs it)")
    site = tmp_path / "site"
    (site / "print_page").mkdir(parents=True)
    (site / "print_page" / "index.html").write_text(
        '<div id="print-site-page"><section class="print-page" id="index"><h1 id="index-home">Home</h1>'
        "<details><summary>A solution</summary><p>Opened on paper</p></details></section></div>"
    )
    monkeypatch.chdir(tmp_path)
    made = make_pdf(Path("site"))
    assert made == site.resolve() / PDF_NAME
    text = " ".join(page.extract_text() for page in pypdf.PdfReader(made).pages)
    assert "Opened on paper" in text and "Contents" in text
    assert not (site / "print_page").exists()
