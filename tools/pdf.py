"""Print the whole guide to one PDF, from a built site, as a book: a title page, contents with page numbers,
running heads, bookmarks.

``mkdocs build`` writes every chapter onto one print page (mkdocs-print-site-plugin). This opens that page in
Debian's Chromium through Playwright (never a browser Playwright downloads) and makes it a book (``BOOK_JS``):
a title page naming the edition, a contents, every collapsed solution opened (paper has no click), and each
chapter on a named CSS page whose margin boxes carry its part and chapter (``tools/paper.css``; Chromium lays
out CSS Paged Media's margin boxes and named pages itself). Chromium has no ``target-counter``, so the contents
get their page numbers in two passes: print, read the page of each title from the PDF's named destinations,
write the numbers in (they take the space the first pass left for them), print the title page and the contents
again, and put them in place of the first print's. Then pypdf adds one
bookmark per part and chapter, and the print page is removed: with all the guide's formulas it weighs several
times the page budget, and on paper the PDF is what a reader wants. ``python3 dev.py build`` and the tests'
site run this; without Chromium there is no PDF.

    python -m tools.pdf SITE_DIR
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import sys
from pathlib import Path

from tools import mkdocs_yml
from tools.edition import edition

PDF_NAME = "mathematics-for-transformers.pdf"
BROWSERS = ("chromium", "chromium-browser", "google-chrome")  # Debian's; Ubuntu's; GitHub's runners'
PAPER_CSS = Path(__file__).with_name("paper.css")
TAGLINE = "The mathematics inside a Transformer, from vectors to a training step, in runnable NumPy."
PRINT_TIMEOUT_MS = 15 * 60 * 1000  # a print of ~300 pages takes a minute or two on two busy cores


def find_browser() -> str | None:
    return next(filter(None, map(shutil.which, BROWSERS)), None)


def make_pdf(site: Path, browser: str | None = None) -> Path | None:
    """Print ``site``'s print page to ``site / PDF_NAME`` and remove the print page; None without a browser."""
    site = site.resolve()
    print_dir = site / "print_page"
    browser = browser or find_browser()
    if browser is None:
        shutil.rmtree(print_dir, ignore_errors=True)
        return None
    from playwright.sync_api import sync_playwright  # the docs extra installs it; imported only to print

    page_file = print_dir / "index.html"
    text = page_file.read_text(encoding="utf-8")
    opened = re.sub(r"<details(?![^>]*\bopen\b)", "<details open", text)
    page_file.write_text(opened, encoding="utf-8")
    pdf = site / PDF_NAME
    with sync_playwright() as playwright:
        # --no-sandbox: it opens only the guide's own page, and the sandbox cannot start as root or under
        # Ubuntu 24.04's restricted user namespaces (GitHub's runners).
        chromium = playwright.chromium.launch(executable_path=browser, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = chromium.new_page()
            page.set_default_timeout(PRINT_TIMEOUT_MS)
            page.emulate_media(media="print")  # laid out as it prints: the theme's print rules hide its chrome
            page.goto(page_file.as_uri(), wait_until="load")
            titles = page.evaluate(BOOK_JS, _front_matter(text))
            page.add_style_tag(content=PAPER_CSS.read_text(encoding="utf-8"))
            _print(page, pdf)  # the contents' numbers are BOOK_JS's "000" placeholders
            numbers = _destination_pages(pdf, [title["id"] for title in titles])
            # The numbers take the room "000" kept for them, so the book's pages stay where they are: print the
            # title page and the contents again with them (a second pass of the whole book took a minute).
            front = pdf.with_name("front.pdf")
            page.evaluate(NUMBERS_JS, numbers)
            page.evaluate(FRONT_ONLY_JS)
            _print(page, front)
        finally:
            chromium.close()
    writer = _with_front(pdf, front, numbers[titles[0]["id"]] - 1)
    _add_bookmarks(writer, titles, numbers)
    with open(pdf, "wb") as out:
        writer.write(out)
    front.unlink()
    shutil.rmtree(print_dir)
    return pdf


def _print(page, pdf: Path) -> None:
    # Untagged: Chromium's tags were 11 of the 14.9 MB (a structure element for every span of every formula and
    # code token), and its outline is derived from them; pypdf adds the bookmarks.
    page.pdf(path=str(pdf), prefer_css_page_size=True, print_background=True, tagged=False, outline=False)


def _with_front(pdf: Path, front: Path, pages: int):
    """A pypdf writer holding the book with the ``pages`` pages of ``front`` (the title page and the contents, with
    their page numbers) in place of its first ``pages``, keeping the book's links on them (the contents' links to
    the chapters)."""
    import pypdf
    from pypdf.generic import NameObject

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    numbered = pypdf.PdfReader(front)
    if len(numbered.pages) != pages:
        raise RuntimeError(f"the contents with their numbers take {len(numbered.pages)} pages, not {pages}")
    writer = pypdf.PdfWriter(clone_from=pdf)
    for index in range(pages):
        page, replacement = writer.pages[index], numbered.pages[index].clone(writer)
        for key in ("/Contents", "/Resources"):
            # raw_get keeps the reference: a page's content stream must be an indirect object, and
            # replacement[key] would resolve it into the page's dictionary (poppler and MuPDF refuse such a page).
            page[NameObject(key)] = replacement.raw_get(key)
    return writer


def _destination_pages(pdf: Path, ids: list[str]) -> dict[str, int]:
    """The page (from 1) each element lies on: Chromium names a destination after every id a link points to."""
    import pypdf

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # Chromium's trailer undercounts its objects by a few
    reader = pypdf.PdfReader(pdf)
    destinations = reader.named_destinations
    missing = [name for name in ids if f"/{name}" not in destinations]
    if missing:
        raise RuntimeError(f"no destination in the PDF for {missing}")
    return {name: reader.get_destination_page_number(destinations[f"/{name}"]) + 1 for name in ids}


def _add_bookmarks(writer, titles: list[dict], numbers: dict[str, int]) -> None:
    """One bookmark per part, with its chapters under it (the home page and the notation come before the parts)."""
    part = None
    for title in titles:
        item = writer.add_outline_item(
            title=title["title"], page_number=numbers[title["id"]] - 1, parent=None if title["part"] else part
        )
        if title["part"]:
            part = item
    writer.page_mode = "/UseOutlines"  # a viewer opens the PDF with its bookmarks shown


def _front_matter(print_page: str) -> dict[str, str | None]:
    """What the title page says: the guide, its edition, its licence, address and install line. The edition is the
    one the build named (hooks/edition.py writes it into the print page), else the checkout's (tools/edition.py)."""
    config = mkdocs_yml.load()
    named = re.search(r'<script type="application/json" id="edition">(.*?)</script>', print_page, re.S)
    return {
        "title": config["site_name"],
        "tagline": TAGLINE,
        "licence": config["copyright"],
        "address": config["site_url"],
        "repository": config["repo_url"],
        **(json.loads(named.group(1)) if named else edition()),
    }


# Run in the print page: the plugin's contents list (no page numbers) gives way to a title page and a contents
# with room for page numbers (NUMBERS_JS writes them); the plugin's part headings, which repeat each part's own
# opening page, go, and so do parts with no chapter in the PDF (Practice, Reference, Contributing: the labs and the
# reference stay on the site). Each part and chapter is set on its own named page, whose margin boxes name it and
# its part. Returns the titles, in order, for the contents and the bookmarks.
BOOK_JS = r"""
(front) => {
  const book = document.getElementById("print-site-page");
  const make = (tag, attributes = {}, text = "") => {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
    if (text) element.textContent = text;
    return element;
  };
  document.getElementById("print-page-toc")?.closest("section")?.remove();
  for (const part of [...book.querySelectorAll("section.md-section")]) {
    part.querySelector(":scope > h1")?.remove();
    if (!part.querySelector("section.print-page[id]")) part.remove();
  }
  const titles = [];
  const pages = [];
  let part = "";
  book.querySelectorAll("section.print-page[id]").forEach((section, index) => {
    const heading = section.querySelector(":scope > h1");
    if (!heading) return;
    heading.querySelector(".headerlink")?.remove();
    const isPart = /^part-\d+$/.test(section.id);
    const title = heading.textContent.trim();
    if (!heading.id) heading.id = section.id + "-title";
    titles.push({id: heading.id, title, part: isPart});
    if (isPart) part = title;
    section.style.page = `chapter-${index}`;
    const left = isPart || !part ? "" : part;
    pages.push(`@page chapter-${index} { @top-left { content: ${JSON.stringify(left)}; }` +
               ` @top-right { content: ${JSON.stringify(isPart ? "" : title)}; } }`);
  });
  document.head.append(make("style", {}, pages.join("\n")));

  const cover = make("section", {class: "book-title"});
  cover.append(make("h1", {class: "book-title__title"}, front.title));
  cover.append(make("p", {class: "book-title__tagline"}, front.tagline));
  const facts = make("dl", {class: "book-title__facts"});
  const fact = (name, value, href) => {
    facts.append(make("dt", {}, name));
    const dd = make("dd");
    dd.append(href ? make("a", {href}, value) : make("code", {}, value));
    facts.append(dd);
  };
  fact("Edition", front.name);
  fact("Read it online", front.address, front.address);
  fact("Source", front.repository, front.commit ? `${front.repository}/tree/${front.commit}` : front.repository);
  fact("Install the library", front.install);
  fact("Licence", front.licence.replace(/\.$/, ""), `${front.repository}/blob/main/LICENSE`);
  cover.append(facts);
  cover.append(make("p", {class: "book-title__note"},
    "Every example runs: install the library with the line above (it pins this edition) and a copied block " +
    "prints what its page shows. The figures that move on the site are printed at their default setting; " +
    "the practice labs and the library's reference are on the site."));

  const contents = make("nav", {class: "book-contents", "aria-label": "Contents"});
  contents.append(make("h1", {class: "book-contents__title"}, "Contents"));
  const list = make("ol");
  for (const title of titles) {
    const item = make("li", {class: title.part ? "book-contents__part" : "book-contents__chapter"});
    const link = make("a", {href: "#" + title.id});
    link.append(make("span", {class: "book-contents__name"}, title.title), make("span", {class: "book-contents__dots"}),
                make("span", {class: "book-contents__page", "data-for": title.id}, "000"));
    item.append(link);
    list.append(item);
  }
  contents.append(list);
  book.prepend(cover, contents);
  return titles;
}
"""

# Only the title page and the contents, for printing them again with their page numbers.
FRONT_ONLY_JS = r"""
() => {
  const book = document.getElementById("print-site-page");
  for (const child of book.children) {
    if (!child.matches(".book-title, .book-contents")) child.style.display = "none";
  }
}
"""

# The contents' page numbers, from the first pass ("000" holds their place in it).
NUMBERS_JS = r"""
(numbers) => {
  for (const span of document.querySelectorAll(".book-contents__page")) {
    span.textContent = numbers[span.dataset.for] ?? "000";
  }
}
"""


if __name__ == "__main__":
    made = make_pdf(Path(sys.argv[1]))
    print(f"[pdf] {made}" if made else "[pdf] no Chromium found, so no PDF (apt-get install -y chromium)")
