"""The edition a reader has in front of them, for the site (hooks/edition.py) and the PDF (tools/pdf.py).

An edition is the library's version (``transformer_math.__version__``, which moves when its API does; see
CHANGELOG.md), the short commit the site was built from, and that commit's date. The site's footer
(overrides/partials/copyright.html) and the PDF's title page (tools/pdf.py) show it, from ``config.extra.edition``.
Every ``pip install git+…`` line on the pages is pinned to the commit (or its tag, when the commit is tagged), so
a block copied from the site prints what the page shows even after the library changes. Outside a git checkout
(a source tarball) there is no commit: the edition is the version alone and the install line stays unpinned.
"""

from __future__ import annotations

import datetime
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPOSITORY = "git+https://github.com/transformer-math/mathematics-for-transformers"
UNPINNED = re.compile(re.escape(REPOSITORY) + r"(?![@\w/.-])")


def _git(*args: str) -> str | None:
    try:
        result = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() or None if result.returncode == 0 else None


def library_version() -> str:
    source = (ROOT / "src" / "transformer_math" / "__init__.py").read_text(encoding="utf-8")
    return re.search(r'^__version__ = "([^"]+)"', source, re.M).group(1)


def edition() -> dict[str, str | None]:
    """The version, short and full commit, the commit's date, the pin (a tag on the commit, else the full
    commit; None outside git), the line that installs this edition, and the edition as one phrase."""
    version = library_version()
    commit = _git("rev-parse", "HEAD")
    short = _git("rev-parse", "--short=7", "HEAD")
    date = _git("log", "-1", "--format=%cs", "HEAD") or datetime.date.today().isoformat()
    pin = _git("describe", "--tags", "--exact-match", "HEAD") or commit
    install = f"pip install {REPOSITORY}" + (f"@{pin}" if pin else "")
    name = f"library {version}, commit {short}, {date}" if short else f"library {version}, {date}"
    return {
        "version": version,
        "commit": commit,
        "short": short,
        "date": date,
        "pin": pin,
        "install": install,
        "name": name,
    }
