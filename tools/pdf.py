"""Print the whole guide to one PDF with Chromium, from a built site.

``mkdocs build`` writes every chapter onto one print page (mkdocs-print-site-plugin, which adds the table of
contents; its stylesheet numbers the pages). This prints that page to ``mathematics-for-transformers.pdf``
at the site's root, with every collapsed solution opened (paper has no click), then removes the print page:
with all the guide's formulas it weighs several times the page budget, and on paper the PDF is what a reader
wants. ``python3 dev.py build`` and the tests' site run this; without Chromium there is no PDF.

    python -m tools.pdf SITE_DIR
"""

from __future__ import annotations

import os
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
        command = [browser, "--headless", "--disable-gpu", f"--user-data-dir={profile}", "--no-pdf-header-footer"]
        command += ["--generate-pdf-document-outline", f"--print-to-pdf={pdf}", page.as_uri()]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
        subprocess.run(command, check=True, capture_output=True, timeout=900)
    if not pdf.is_file() or pdf.stat().st_size == 0:
        raise RuntimeError(f"{browser} wrote no PDF of {page}")
    shutil.rmtree(print_dir)
    return pdf


if __name__ == "__main__":
    made = make_pdf(Path(sys.argv[1]))
    print(f"[pdf] {made}" if made else "[pdf] no Chromium found, so no PDF (apt-get install -y chromium)")
