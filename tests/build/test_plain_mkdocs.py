"""`mkdocs build --strict` as a MkDocs user types it in the project's .venv: no PYTHONPATH, none of dev.py's
variables. The .pth file that dev.py's set-up writes (tools/build_env.py) puts the repository on the path
and sets the build environment; without it the hooks fail with "No module named 'tools'". `python3 dev.py build`
runs MkDocs that way, and the tests' site is built by it (``built_site`` in tests/conftest.py), so these read
what MkDocs printed there instead of building again."""

from __future__ import annotations

import os

import pytest
from mkdocs.config import load_config

from tests.conftest import PLAIN_ENV, ROOT


def test_the_site_is_built_by_plain_mkdocs_in_a_plain_environment():
    if "PYTHONPATH" in os.environ:
        pytest.skip("PYTHONPATH is set by hand, and the build uses it; dev.py and CI never set one")
    assert "PYTHONPATH" not in PLAIN_ENV
    assert not any(name.startswith(("MKDOCS", "NO_MKDOCS", "NBCONVERT", "JUPYTER")) for name in PLAIN_ENV)


def test_plain_mkdocs_build_warns_of_nothing(built_site):
    log = built_site.with_suffix(".log").read_text(encoding="utf-8")
    warnings = [line for line in log.splitlines() if line.startswith("WARNING") or "Traceback" in line]
    assert not warnings, "\n".join(warnings)
    assert "end of life" not in log, "the theme's banner: NO_MKDOCS_2_WARNING was not set"
    assert (built_site / "part-2" / "softmax" / "index.html").is_file()


def test_the_print_page_is_made_only_for_the_pdf(monkeypatch):
    monkeypatch.delenv("MKDOCS_PRINT_PAGE", raising=False)
    plugins = load_config(str(ROOT / "mkdocs.yml")).plugins
    assert plugins["print-site"].config["enabled"] is False
    monkeypatch.setenv("MKDOCS_PRINT_PAGE", "true")
    assert load_config(str(ROOT / "mkdocs.yml")).plugins["print-site"].config["enabled"] is True
