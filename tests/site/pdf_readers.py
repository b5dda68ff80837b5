"""What the PDF readers people use say of a PDF: qpdf's structural check, poppler (Evince, Okular, pdftoppm,
pdftotext) and MuPDF (mutool). pypdf opens files these refuse, so the book is read by all three."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# Debian's package for each command (dev.py's set-up installs them; the tests fail, never skip, without them).
READERS = {"qpdf": "qpdf", "pdftoppm": "poppler-utils", "pdftotext": "poppler-utils", "mutool": "mupdf-tools"}
# MuPDF's notes on features it leaves out, not on the file: a page still draws in full.
MUPDF_NOTES = ("ICC support is not available", "ignoring transfer function", "times...")  # "... repeated 2 times..."


def missing_readers() -> list[str]:
    return sorted({package for command, package in READERS.items() if shutil.which(command) is None})


def _run(*command: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=600, cwd=cwd)


def _gray_pages(folder: Path) -> dict[int, bytes]:
    """The pixels of each binary PGM image in ``folder`` (pdftoppm's and mutool's gray output), by page number."""
    pages = {}
    for image in folder.iterdir():
        data = image.read_bytes()
        fields = data.split(maxsplit=4)  # P5, width, height, maximum, pixels
        number = int("".join(filter(str.isdigit, image.stem)))
        pages[number] = fields[4][: int(fields[1]) * int(fields[2])] if fields[0] == b"P5" else b""
    return pages


def _drawn(pages: dict[int, bytes], count: int, reader: str) -> list[str]:
    problems = [f"{reader}: page {n} was not drawn" for n in range(1, count + 1) if n not in pages]
    for number, pixels in sorted(pages.items()):
        if len(pixels) < 100 or min(pixels) > 200:  # a 1x1 image, or nothing darker than light gray: no text drawn
            problems.append(f"{reader}: page {number} is drawn blank")
    return problems


def problems(pdf: Path, title: str) -> list[str]:
    """Every error or warning qpdf, poppler and MuPDF give on ``pdf``, every page either draws blank (at 20 dpi,
    in gray), and the title page's text when it does not start with ``title``. Empty when all three read it."""
    found = []
    check = _run("qpdf", "--check", str(pdf))
    if check.returncode != 0 or "WARNING" in check.stdout + check.stderr:
        found.append(f"qpdf --check exits {check.returncode}: {(check.stderr or check.stdout).strip()[:500]}")
    count = int(_run("qpdf", "--show-npages", str(pdf)).stdout.strip() or 0)
    with tempfile.TemporaryDirectory() as folder:
        poppler, mupdf = Path(folder, "poppler"), Path(folder, "mupdf")
        poppler.mkdir(), mupdf.mkdir()
        drawn = _run("pdftoppm", "-r", "20", "-gray", str(pdf), str(poppler / "page"))
        found += [f"pdftoppm: {line}" for line in drawn.stderr.splitlines() if line.strip()]
        found += _drawn(_gray_pages(poppler), count, "pdftoppm")
        drawn = _run("mutool", "draw", "-q", "-r", "20", "-c", "gray", "-o", str(mupdf / "page%d.pgm"), str(pdf))
        notes = [line for line in drawn.stderr.splitlines() if line.strip() and not line.endswith(MUPDF_NOTES)]
        found += [f"mutool draw: {line}" for line in notes] + _drawn(_gray_pages(mupdf), count, "mutool draw")
    for reader, text in [
        ("pdftotext", _run("pdftotext", "-f", "1", "-l", "1", str(pdf), "-").stdout),
        ("mutool", _run("mutool", "draw", "-q", "-F", "txt", "-o", "-", str(pdf), "1").stdout),
    ]:
        if not " ".join(text.split()).startswith(title):
            found.append(f"{reader}: the title page's text does not start with {title!r}: {text[:200]!r}")
    return list(dict.fromkeys(found))  # a reader repeats its complaint for every page it tries


def page_texts(pdf: Path) -> list[str]:
    """The text pypdf extracts from each page, extracted in a process of its own: pure Python for a minute of
    CPU, which in a thread of the test session would hold the interpreter's lock against the tests."""
    done = _run(sys.executable, "-m", "tests.site.pdf_readers", str(pdf), cwd=Path(__file__).resolve().parents[2])
    if done.returncode != 0:
        raise RuntimeError(f"pypdf could not read {pdf}: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


if __name__ == "__main__":
    import pypdf

    json.dump([page.extract_text() or "" for page in pypdf.PdfReader(sys.argv[1]).pages], sys.stdout)
