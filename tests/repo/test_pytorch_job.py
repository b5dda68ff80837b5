"""ci.yml's PyTorch job, run here: its pytest command in an environment of the ``reference`` extra.

The job installs torch from PyTorch's own CPU index, which these machines may not reach; here torch is the newest
CPU build (``+cpu``) pip finds, through that index when it answers and through pip's own configuration otherwise.
Then the job's own lines run as written: the library with its ``reference`` extra, and the comparison with PyTorch.
The environment is kept in .cache/reference-venv and made anew when pyproject.toml or constraints.txt change.
"""

from __future__ import annotations

import hashlib
import re
import shlex
import shutil
import subprocess
import venv
from pathlib import Path

import pytest
import yaml

from tests.background import background, run

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".cache" / "reference-venv"
PYTHON = VENV / "bin" / "python"


def job_steps() -> dict[str, str]:
    ci = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8"))
    return {step["name"]: step["run"] for step in ci["jobs"]["pytorch"]["steps"] if "run" in step}


def _install_step() -> list[str]:
    return [line for step, lines in job_steps().items() if "Install" in step for line in lines.splitlines()]


def _compare_command() -> str:
    return next(lines for step, lines in job_steps().items() if "Compare" in step)


def _as_here(line: str) -> list[str]:
    """One of the job's lines, with the job's ``python3`` (setup-python's) as this environment's Python."""
    words = shlex.split(line)
    assert words[0] == "python3", line
    return [str(PYTHON), *words[1:]]


def _checked(command: list[str]) -> str:
    result = run(command, cwd=ROOT)
    if result.returncode != 0:
        pytest.fail(
            f"{' '.join(command)} exited {result.returncode}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        )
    return result.stdout


def _cpu_torch(index_url: str) -> str:
    """``torch==VERSION`` of the newest CPU build pip finds (its versions are labelled ``+cpu``)."""
    found = _checked(
        [str(PYTHON), "-m", "pip", "index", "versions", "torch", "--extra-index-url", index_url]
        + ["--retries", "0", "--timeout", "10"]
    )
    versions = re.search(r"Available versions: (.*)", found)
    cpu = [version for version in (versions.group(1).split(", ") if versions else []) if version.endswith("+cpu")]
    assert cpu, f"pip finds no CPU build of torch (labelled +cpu) here or at {index_url}:\n{found}"
    return f"torch=={cpu[0]}"


@background(nice=5)
def pytorch_job() -> subprocess.CompletedProcess:
    """The job's comparison command, run in .cache/reference-venv (made first when missing or out of date)."""
    wanted = hashlib.sha256(b"".join((ROOT / name).read_bytes() for name in ("pyproject.toml", "constraints.txt")))
    stamp = VENV / ".installed"
    if not stamp.exists() or stamp.read_text() != wanted.hexdigest():
        shutil.rmtree(VENV, ignore_errors=True)
        venv.create(VENV, with_pip=True)
        first, *rest = _install_step()
        index_url = re.search(r"--index-url (\S+)", first).group(1)
        _checked([str(PYTHON), "-m", "pip", "install", "--quiet", _cpu_torch(index_url)])
        for line in rest:
            if line.startswith("python3 -m pip install"):
                _checked(_as_here(line))
        stamp.write_text(wanted.hexdigest())
    return run(_as_here(_compare_command()), cwd=ROOT)


def test_the_install_step_takes_torch_from_pytorchs_cpu_index_then_the_reference_extra():
    first, second, *_ = _install_step()
    assert "--index-url https://download.pytorch.org/whl/cpu torch" in first
    assert '--editable ".[reference]"' in second and "--constraint constraints.txt" in second


def test_the_pytorch_jobs_command_passes_with_torch_installed(pytorch_job):
    assert pytorch_job.returncode == 0, pytorch_job.stdout[-5000:] + pytorch_job.stderr[-2000:]
    summary = pytorch_job.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, summary
    skipped = [line for line in pytorch_job.stdout.splitlines() if line.startswith("SKIPPED")]
    assert not [line for line in skipped if "torch" in line.lower()], "skipped for want of PyTorch:\n" + "\n".join(
        skipped
    )
    cuda = _checked([str(PYTHON), "-c", "import torch; print(torch.version.cuda)"]).strip()
    assert cuda == "None", f"torch in the reference environment is a CUDA build ({cuda}), not the CPU one"
