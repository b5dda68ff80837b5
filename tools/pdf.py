"""Print the whole guide to one PDF with Chromium, from a built site.

``mkdocs build`` writes every chapter onto one print page (mkdocs-print-site-plugin, which adds the table of
contents; its stylesheet numbers the pages). This prints that page to ``mathematics-for-transformers.pdf``
at the site's root, with every collapsed solution opened (paper has no click), then removes the print page:
with all the guide's formulas it weighs several times the page budget, and on paper the PDF is what a reader
wants. ``python3 dev.py build`` and the tests' site run this; without Chromium there is no PDF.

    python -m tools.pdf SITE_DIR
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PDF_NAME = "mathematics-for-transformers.pdf"
BROWSERS = ("chromium", "chromium-browser", "google-chrome")  # Debian's; Ubuntu's; GitHub's runners'


def find_browser() -> str | None:
    return next(filter(None, map(shutil.which, BROWSERS)), None)


def make_pdf(site: Path, browser: str | None = None) -> Path | None:
    """Print ``site``'s print page to ``site / PDF_NAME`` and remove the print page; None without a browser."""
    site = site.resolve()  # Chromium is handed a file:// address, which must be absolute (dev.py passes "site")
    print_dir = site / "print_page"
    browser = browser or find_browser()
    if browser is None:
        shutil.rmtree(print_dir, ignore_errors=True)
        return None
    page = print_dir / "index.html"
    opened = re.sub(r"<details(?![^>]*\bopen\b)", "<details open", page.read_text(encoding="utf-8"))
    page.write_text(opened, encoding="utf-8")
    pdf = site / PDF_NAME
    with tempfile.TemporaryDirectory() as profile:
        # --no-sandbox: it opens only the guide's own page, and the sandbox cannot start as root or under
        # Ubuntu 24.04's restricted user namespaces (GitHub's runners).
        command = [browser, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}"]
        command += ["--no-pdf-header-footer", "--generate-pdf-document-outline", f"--print-to-pdf={pdf}", page.as_uri()]
        subprocess.run(command, check=True, capture_output=True, timeout=900)
    if not pdf.is_file() or pdf.stat().st_size == 0:
        raise RuntimeError(f"{browser} wrote no PDF of {page}")
    shutil.rmtree(print_dir)
    return pdf


if __name__ == "__main__":
    made = make_pdf(Path(sys.argv[1]))
    print(f"[pdf] {made}" if made else "[pdf] no Chromium found, so no PDF (apt-get install -y chromium)")
