"""The GitHub workflows are valid against GitHub's schema and clean under zizmor's security audit."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    return str(BIN / name) if (BIN / name).exists() else shutil.which(name) or name


def test_workflows_match_the_github_schema():
    result = subprocess.run(
        [tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_zizmor_reports_nothing():
    result = subprocess.run(
        [tool("zizmor"), "--offline", "--no-progress", str(ROOT / ".github" / "workflows")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ci_runs_the_readme_test_command():
    ci = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    commands = [step.get("run", "") for step in ci["jobs"]["test"]["steps"]]
    assert "python3 dev.py test" in commands
    assert ci["jobs"]["test"]["strategy"]["matrix"]["python-version"] == ["3.11", "3.13"]
    assert "python3 dev.py test" in (ROOT / ".ci" / "run").read_text()
    assert "python3 dev.py test" in (ROOT / "README.md").read_text()


def test_the_tests_build_the_site_with_the_pages_workflows_command():
    """tests/conftest.py's one build is the Pages workflow's, in a fresh environment: a failure there is seen here."""
    pages = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text())
    commands = [step.get("run", "") for step in pages["jobs"]["build"]["steps"]]
    assert "python3 dev.py build" in commands
    conftest = (ROOT / "tests" / "conftest.py").read_text()
    assert '"dev.py"), "build", "--site-dir"' in conftest and '"DEV_VENV"' in conftest


def test_pages_deploy_has_least_permissions():
    pages = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text())
    assert pages["permissions"] == {"contents": "read"}
    assert pages["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert "permissions" not in pages["jobs"]["build"]
    assert pages["concurrency"]["group"] == "pages"
    uses = [step.get("uses", "") for job in pages["jobs"].values() for step in job["steps"]]
    assert any(u.startswith("actions/upload-pages-artifact@") for u in uses)
    assert any(u.startswith("actions/deploy-pages@") for u in uses)
