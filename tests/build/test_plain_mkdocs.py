"""`mkdocs build --strict` as a MkDocs user types it in the project's .venv: no PYTHONPATH, none of dev.py's
variables. The .pth file that dev.py's set-up writes (tools/build_env.py) puts the repository on the path
and sets the build environment; without it the hooks fail with "No module named 'tools'"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def test_plain_mkdocs_build_succeeds_and_warns_of_nothing(tmp_path):
    mkdocs = Path(sys.executable).with_name("mkdocs")  # the venv's own script, as a user runs it
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", str(tmp_path))}
    result = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-5000:]
    warnings = [line for line in log.splitlines() if line.startswith("WARNING") or "Traceback" in line]
    assert not warnings, "\n".join(warnings)
    assert "end of life" not in log, "the theme's banner: NO_MKDOCS_2_WARNING was not set"
    assert (tmp_path / "site" / "part-2" / "softmax" / "index.html").is_file()
    assert not (tmp_path / "site" / "print_page").exists(), "the print page is made only for the PDF"
