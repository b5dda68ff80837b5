#!/usr/bin/env python3
"""Set up everything the guide needs, then serve the site or run the tests.

    python3 dev.py serve            # build and serve the site at http://127.0.0.1:8000
    python3 dev.py test [ARGS...]   # run every test; ARGS go to pytest (e.g. --update-outputs)
    python3 dev.py build            # build the site into site/ with --strict, and its PDF (with Chromium)

The first run creates .venv (Python packages, from pyproject.toml and constraints.txt) and
node_modules (KaTeX and axe-core, from package-lock.json). Later runs reinstall only what changed.
`test` also installs Debian's chromium and three PDF readers, for the browser and PDF tests, when missing.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

from tools import build_env  # standard library only

try:
    import fcntl
except ImportError:  # Windows: no lock; start one command at a time
    fcntl = None

ROOT = Path(__file__).resolve().parent
# DEV_VENV puts the environment elsewhere: the tests build the site as the Pages workflow does, in a fresh one
# holding only what `build` installs (tests/conftest.py).
VENV = Path(os.environ.get("DEV_VENV") or ROOT / ".venv").resolve()
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / "python"
# The environment of every build, serve and test run (and of the builds benchmarks/bench_reader.py times),
# also applied by the .pth file that ensure_python_env writes, so that `mkdocs build` typed in .venv is the same.
BUILD_ENV = build_env.BUILD_ENV
PTH_FILE = "mathematics_for_transformers.pth"


def say(message: str) -> None:
    print(f"[dev] {message}", flush=True)


def run(*command: str | Path, **kwargs) -> None:
    subprocess.run([str(part) for part in command], check=True, cwd=ROOT, **kwargs)


def fingerprint(*paths: Path) -> str:
    digest = hashlib.sha256()
    for path in paths:
        if path.exists():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@contextlib.contextmanager
def setup_lock():
    """Two commands started together on a fresh clone wait for each other instead of both creating .venv."""
    with open(ROOT / ".dev.lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def ensure_python_env(extra: str) -> None:
    """Install the package with ``extra``: "docs" (what building the site needs) or "test" (docs + test tools)."""
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py runs under any python3, to say so
        sys.exit(f"Python 3.11 or newer is needed; this is {sys.version.split()[0]}.")
    if not PYTHON.exists():
        say(f"creating {VENV.name}")
        try:
            venv.create(VENV, with_pip=True)
        except Exception as err:  # Debian and Ubuntu ship venv's pip separately
            sys.exit(
                f"Could not create a virtual environment ({err}).\n"
                "On Debian or Ubuntu: sudo apt-get install python3-venv, then run this again."
            )
    wanted = fingerprint(ROOT / "pyproject.toml", ROOT / "constraints.txt")
    covering = {"docs": ["docs", "test"], "test": ["test"]}[extra]  # the test extra includes the docs one
    if not any(read(VENV / f".installed-{name}") == wanted for name in covering):
        say(f"installing Python packages ({extra})")
        run(PYTHON, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
        constraints = ["--constraint", "constraints.txt"] if (ROOT / "constraints.txt").exists() else []
        # --no-compile: pip would compile every module of every package; Python compiles those a command imports.
        run(PYTHON, "-m", "pip", "install", "--quiet", "--no-compile", *constraints, "--editable", f".[{extra}]")
        (VENV / f".installed-{extra}").write_text(wanted)
    write_pth_file()


def write_pth_file() -> None:
    """Put the repository on .venv's path, with the build environment: then `mkdocs serve` and `mkdocs build`
    work as typed in .venv (the hooks import tools/), and IDEs resolve the hooks' and tests' imports."""
    purelib = subprocess.run(
        [str(PYTHON), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    pth = Path(purelib) / PTH_FILE
    if read(pth) != build_env.pth_file():
        pth.write_text(build_env.pth_file())


def read(path: Path) -> str:
    return path.read_text() if path.exists() else ""


def ensure_node_modules() -> None:
    if shutil.which("npm") is None:
        sys.exit("npm is needed (Node.js 20 or newer) to render formulas with KaTeX.")
    stamp = ROOT / "node_modules" / ".installed"
    wanted = fingerprint(ROOT / "package-lock.json")
    if read(stamp) != wanted:
        say("installing npm packages")
        run("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
        stamp.write_text(wanted)


# Debian's packages the tests need, by the command each gives: the browser the site is read (and the PDF printed)
# in, and three PDF readers the book must open in: qpdf, poppler (Evince, Okular) and MuPDF.
SYSTEM_PACKAGES = {"chromium": "chromium", "qpdf": "qpdf", "pdftoppm": "poppler-utils", "mutool": "mupdf-tools"}


def ensure_system_packages() -> None:
    """Install what the browser and PDF tests need (never a browser Playwright downloads); they fail without it."""
    missing = sorted({package for command, package in SYSTEM_PACKAGES.items() if shutil.which(command) is None})
    if not missing:
        return
    command = f"apt-get update && apt-get install -y {' '.join(missing)}"
    if os.name == "posix" and os.geteuid() == 0 and shutil.which("apt-get"):
        say(f"installing Debian's {', '.join(missing)} for the browser and PDF tests")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        run("apt-get", "update", "-qq", env=env)
        run("apt-get", "install", "-y", "-qq", *missing, env=env)
    else:
        say(f"{', '.join(missing)} missing, so the browser and PDF tests will fail; install: sudo sh -c '{command}'")


def site_dir(args: list[str]) -> str:
    """The folder `mkdocs build` writes to, as its ``-d``/``--site-dir`` option gives it (``site`` otherwise)."""
    for index, arg in enumerate(args):
        if arg in {"-d", "--site-dir"} and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith("--site-dir="):
            return arg.split("=", 1)[1]
    return "site"


def main(argv: list[str]) -> int:
    task, args = (argv[0], argv[1:]) if argv else ("", [])
    if task not in {"serve", "test", "build"}:
        print(__doc__)
        return 2
    with setup_lock():
        ensure_python_env("test" if task == "test" else "docs")
        ensure_node_modules()
        if task == "test":
            ensure_system_packages()
    os.environ["PATH"] = f"{BIN}{os.pathsep}{os.environ['PATH']}"
    if task == "build":
        # The site with its print page, then the whole guide as one PDF (tools/pdf.py, Chromium). MkDocs runs as
        # typed in .venv, its settings from the .pth file alone (tools/build_env.py): the tests build this way.
        env = {**os.environ, **build_env.PRINT_PAGE_ENV}
        say("building the site: mkdocs build --strict")
        if subprocess.call([str(BIN / "mkdocs"), "build", "--strict", *args], cwd=ROOT, env=env):
            return 1
        site = site_dir(args)
        say(f"site built into {site}; printing the PDF")
        return subprocess.call([str(PYTHON), "-m", "tools.pdf", str(site)], cwd=ROOT, env=env)
    for name, value in BUILD_ENV.items():  # as the .pth file does in .venv; here also for a build's subprocesses
        os.environ.setdefault(name, value)
    if task == "serve":
        os.environ.setdefault("MKDOCS_SITE_URL", "http://127.0.0.1:8000/")  # serve at the root, not /repo-name/
        command = [BIN / "mkdocs", "serve", "--dev-addr", "127.0.0.1:8000", *args]
    else:
        command = [PYTHON, "-m", "pytest", *args]
    return subprocess.call([str(part) for part in command], cwd=ROOT)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
