"""Shared fixtures: the site is built once per test session, into a temporary folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from dev import BUILD_ENV
from tools.pdf import make_pdf

ROOT = Path(__file__).resolve().parent.parent

# Shared, busy machines make timings meaningless: no per-example deadline. In CI the examples are
# derived from each test's name, so a run is reproducible and a red build is never a coin toss;
# locally hypothesis keeps exploring new examples.
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """Build the site once as ``python3 dev.py build`` does (``mkdocs build --strict``, then the PDF) and return
    its folder; the build's log is beside it (.log)."""
    site = tmp_path_factory.mktemp("site")
    env = {**BUILD_ENV, **os.environ}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}", pytrace=False)
    site.with_suffix(".log").write_text(result.stdout + result.stderr, encoding="utf-8")
    make_pdf(site)
    return site
