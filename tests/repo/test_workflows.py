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
    writers = [name for name, job in pages["jobs"].items() if job.get("permissions", {}).get("contents") == "write"]
    assert writers == ["notebooks"] and pages["jobs"]["notebooks"]["permissions"] == {"contents": "write"}
    assert pages["concurrency"]["group"] == "pages"
    uses = [step.get("uses", "") for job in pages["jobs"].values() for step in job["steps"]]
    assert any(u.startswith("actions/upload-pages-artifact@") for u in uses)
    assert any(u.startswith("actions/deploy-pages@") for u in uses)


def test_every_colab_link_of_a_lab_is_a_notebook_the_pages_workflow_pushes():
    """Each lab's page links to its notebook on the branch the workflow pushes, under the name the build gives it
    and the workflow uploads (the push itself cannot run here)."""
    import fnmatch
    import re

    import jupytext

    from hooks import notebooks as hook
    from tools.labs import solved_page

    pages = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text())
    uploads = [
        step for step in pages["jobs"]["build"]["steps"] if step.get("uses", "").startswith("actions/upload-artifact@")
    ]
    assert len(uploads) == 1 and uploads[0]["with"]["name"] == "lab-notebooks"
    uploaded = uploads[0]["with"]["path"]  # site/notebooks/lab-*.ipynb
    job = pages["jobs"]["notebooks"]
    download = next(step for step in job["steps"] if step.get("uses", "").startswith("actions/download-artifact@"))
    assert download["with"]["name"] == "lab-notebooks"
    script = next(step for step in job["steps"] if "git push" in step.get("run", ""))
    assert script["working-directory"] == download["with"]["path"]  # the notebooks at the root of the branch
    pushed_branch = re.search(r"git push --force \S+ (\S+)\s*$", script["run"]).group(1)
    assert "git init --quiet --initial-branch=" + pushed_branch in script["run"]
    added = re.search(r"git add (\S+)", script["run"]).group(1)

    repo_url = yaml.safe_load(
        "\n".join(line for line in (ROOT / "mkdocs.yml").read_text().splitlines() if line.startswith("repo_url:"))
    )["repo_url"]
    labs = sorted((ROOT / "docs" / "labs").glob("*.py"))
    assert labs
    for lab in labs:
        src_uri = f"labs/{lab.name}"
        link = hook.colab_url(src_uri, repo_url)
        match = re.fullmatch(
            r"https://colab\.research\.google\.com/github/([\w-]+/[\w.-]+)/blob/([\w-]+)/([\w.-]+)", link
        )
        assert match, link
        repository, branch, name = match.groups()
        assert repo_url.endswith("/" + repository) and branch == pushed_branch == hook.NOTEBOOKS_BRANCH
        built = "site/" + hook.notebook_path(src_uri)  # where the build writes the lab's download
        assert fnmatch.fnmatch(built, uploaded) and fnmatch.fnmatch(name, added) and built.endswith("/" + name)
        page = solved_page(jupytext.read(lab), link)
        assert f'<a href="{link}">open it in Colab</a>' in page.cells[1].source, f"{lab.name}: no Colab link"
