"""Shared fixtures: the site is built once per test session, into a temporary folder, in the background
(tests/background.py) while the pages and the library are tested; its PDF is printed while Chromium reads it."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest
from hypothesis import settings

from tests import background
from tools.build_env import PRINT_PAGE_ENV
from tools.pdf import PDF_NAME, make_pdf

ROOT = Path(__file__).resolve().parent.parent
STARTED = pytest.StashKey[float]()

# Shared, busy machines make timings meaningless: no per-example deadline. In CI the examples are
# derived from each test's name, so a run is reproducible and a red build is never a coin toss;
# locally hypothesis keeps exploring new examples.
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_collection_finish(session):
    if not session.config.option.collectonly:
        session.config.stash[STARTED] = time.monotonic()
        background.start_needed(session.items)


def pytest_terminal_summary(terminalreporter, config):
    """The background jobs' times, from the end of collection: the critical path of a full run."""
    lines = background.timings(config.stash.get(STARTED, 0.0))
    if lines:
        terminalreporter.write_sep("-", "background jobs (seconds after collection)")
        for line in lines:
            terminalreporter.write_line(line)


def pytest_sessionfinish(session):
    background.stop()


# What a MkDocs user's shell hands `mkdocs build` typed in .venv: no PYTHONPATH, none of dev.py's variables (the
# .pth file that dev.py's set-up writes supplies them, tools/build_env.py).
# A PYTHONPATH set by hand passes (a git worktree sharing another checkout's .venv); dev.py and CI never set one.
PLAIN_ENV = {name: os.environ[name] for name in ("PATH", "HOME", "TMPDIR", "LANG", "PYTHONPATH") if name in os.environ}


@background.background
def built_site() -> Path:
    """The site built as a MkDocs user builds it, ``.venv/bin/mkdocs build --strict`` in a plain environment (as
    ``python3 dev.py build`` builds it, which also prints the PDF); the build's log is beside it (.log). Its print
    page waits beside it, for ``built_pdf``, so that no test reads it while it prints."""
    site = background.temp_dir("site") / "site"
    result = background.run(
        [str(Path(sys.executable).with_name("mkdocs")), "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env={**PLAIN_ENV, **PRINT_PAGE_ENV},
    )
    if result.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}", pytrace=False)
    site.with_suffix(".log").write_text(result.stdout + result.stderr, encoding="utf-8")
    # The print page links the site's files relatively (../assets/...): beside it, links to all of them.
    printing = site.parent / "print"
    printing.mkdir()
    (site / "print_page").rename(printing / "print_page")
    for entry in site.iterdir():
        (printing / entry.name).symlink_to(entry)
    return site


@background.background
def built_pdf() -> Path:
    """The whole guide as one PDF, printed as ``python3 dev.py build`` prints it (tools/pdf.py, which removes the
    print page), then put in the site; returns the print folder."""
    site = background.result("built_site")
    printing = site.parent / "print"
    pdf = make_pdf(printing)
    if pdf is not None:
        shutil.move(pdf, site / PDF_NAME)
    return printing
