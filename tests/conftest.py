"""Shared fixtures: the site is built once per test session, as the Pages workflow builds it, into a temporary
folder, in the background (tests/background.py) while the pages and the library are tested; its PDF is printed
while Chromium reads it."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from hypothesis import settings

from tests import background
from tools.pdf import PDF_NAME

ROOT = Path(__file__).resolve().parent.parent
STARTED = pytest.StashKey[float]()
# Tests that call the labs' checks in this process: a check refuses to run beside another thread that runs code of
# no module's (a job's kernel client runs such code: attrs' generated methods), so they run before those jobs start.
CHECKS_IN_PROCESS = (
    "src/transformer_math/labs/",
    "tests/library/test_lab_",
    "tests/pages/test_lab_values.py",
    "tests/build/test_labs.py::test_gpt_backward_is_judged_on_its_own",
)
# The background jobs in the order they finish in a full run (their times print at its end).
READY_ORDER = ["executed", "built_site", "built_pdf", "reading", "pdf_read", "pytorch_job", "verdicts"]

# Shared, busy machines make timings meaningless: no per-example deadline. In CI the examples are
# derived from each test's name, so a run is reproducible and a red build is never a coin toss;
# locally hypothesis keeps exploring new examples.
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_collection_modifyitems(items):
    background.order(items, READY_ORDER, alone=lambda item: item.nodeid.startswith(CHECKS_IN_PROCESS))


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


# What a shell hands a command typed in it: no PYTHONPATH, none of dev.py's variables (the .pth file that dev.py's
# set-up writes supplies them, tools/build_env.py). A PYTHONPATH set by hand passes (a git worktree sharing
# another checkout's .venv); dev.py and CI never set one.
PLAIN_ENV = {name: os.environ[name] for name in ("PATH", "HOME", "TMPDIR", "LANG", "PYTHONPATH") if name in os.environ}
# The lines `python3 dev.py build` prints before MkDocs and between the site and the PDF (the browser starts reading
# then): what MkDocs printed lies between them.
MKDOCS_STARTS, SITE_BUILT = "[dev] building the site", "[dev] site built into "
_BUILD: dict[str, object] = {}
PYTHON3 = getattr(sys, "_base_executable", sys.executable)  # the Python .venv was made from, as a shell's python3


@background.background
def built_site() -> Path:
    """The site built as the Pages workflow builds it: ``python3 dev.py build`` in a fresh virtual environment that
    holds only what ``build`` installs (``DEV_VENV``), MkDocs run by it as typed in that environment. Ready when
        the HTML is; the PDF is printed meanwhile (``built_pdf``). What MkDocs printed is beside the site (.log), the
    whole command's output beside that (dev-build.log)."""
    site = background.temp_dir("site") / "site"
    log = site.with_name("dev-build.log")
    environment = {**PLAIN_ENV, "DEV_VENV": str(background.temp_dir("build-venv") / "venv")}
    process = background.start(
        [PYTHON3, str(ROOT / "dev.py"), "build", "--site-dir", str(site)], log, cwd=ROOT, env=environment
    )
    _BUILD.update(process=process, log=log)
    while SITE_BUILT not in log.read_text(encoding="utf-8"):
        if process.poll() is not None:
            pytest.fail(f"python3 dev.py build failed:\n{log.read_text(encoding='utf-8')}", pytrace=False)
        time.sleep(0.5)
    output = log.read_text(encoding="utf-8")
    mkdocs = output[output.index("\n", output.index(MKDOCS_STARTS)) + 1 : output.index(SITE_BUILT)]
    site.with_suffix(".log").write_text(mkdocs, encoding="utf-8")
    return site


@background.background
def built_pdf() -> Path:
    """The whole guide as one PDF, where ``python3 dev.py build`` put it; the build has ended (exit 0)."""
    site = background.result("built_site")
    if _BUILD["process"].wait() != 0:
        pytest.fail(f"python3 dev.py build failed:\n{_BUILD['log'].read_text(encoding='utf-8')}", pytrace=False)
    return site / PDF_NAME
