#!/usr/bin/env python3
"""Set up everything the guide needs, then serve the site or run the tests.

    python3 dev.py serve            # build and serve the site at http://127.0.0.1:8000
    python3 dev.py test [ARGS...]   # run every test; ARGS go to pytest (e.g. --update-outputs)
    python3 dev.py build            # build the site into site/ with --strict, and its PDF (with Chromium)

The first run creates .venv (Python packages, from pyproject.toml and constraints.txt) and
node_modules (KaTeX and axe-core, from package-lock.json). Later runs reinstall only what changed.
`test` also installs Debian's chromium, for the browser tests, when it is missing.
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

try:
    import fcntl
except ImportError:  # Windows: no lock; start one command at a time
    fcntl = None

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / "python"
# Set for every build, serve and test run (and for the builds benchmarks/bench_reader.py times).
BUILD_ENV = {
    "NO_MKDOCS_2_WARNING": "1",  # the theme's end-of-life banner, printed on every build
    # mkdocs-jupyter imports nbconvert's command-line app, whose class body lists the exporters it could
    # offer on the command line by loading and instantiating each one: 0.4-0.5 s of every build, for a
    # help text. With this set it lists them by name only; the pages are the same byte for byte.
    "NBCONVERT_DISABLE_CONFIG_EXPORTERS": "1",
    # The labs' kernels talk over Unix sockets (tools/jupyter/): over TCP each kernel warns that it is
    # unencrypted, and kernels started together can race for the same port ("Address already in use").
    "JUPYTER_CONFIG_PATH": str(ROOT / "tools" / "jupyter"),
}


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
        run(PYTHON, "-m", "pip", "install", "--quiet", *constraints, "--editable", f".[{extra}]")
        (VENV / f".installed-{extra}").write_text(wanted)


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


def ensure_chromium() -> None:
    """The browser tests read the site in Debian's chromium package (never a browser Playwright downloads)."""
    if shutil.which("chromium"):
        return
    command = "apt-get update && apt-get install -y chromium"
    if os.name == "posix" and os.geteuid() == 0 and shutil.which("apt-get"):
        say("installing Debian's chromium for the browser tests")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        run("apt-get", "update", "-qq", env=env)
        run("apt-get", "install", "-y", "-qq", "chromium", env=env)
    else:
        say(f"chromium is missing, so the browser tests will fail; install it with: sudo sh -c '{command}'")


def main(argv: list[str]) -> int:
    task, args = (argv[0], argv[1:]) if argv else ("", [])
    if task not in {"serve", "test", "build"}:
        print(__doc__)
        return 2
    with setup_lock():
        ensure_python_env("test" if task == "test" else "docs")
        ensure_node_modules()
        if task == "test":
            ensure_chromium()
    os.environ["PATH"] = f"{BIN}{os.pathsep}{os.environ['PATH']}"
    # The one place the repository goes on the path: hooks, tests and benchmarks import tools/ from it.
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    for name, value in BUILD_ENV.items():
        os.environ.setdefault(name, value)
    if task == "serve":
        os.environ.setdefault("MKDOCS_SITE_URL", "http://127.0.0.1:8000/")  # serve at the root, not /repo-name/
        command = [BIN / "mkdocs", "serve", "--dev-addr", "127.0.0.1:8000", *args]
    elif task == "build":  # the site, then the whole guide as one PDF (tools/pdf.py; needs Chromium)
        if subprocess.call([str(BIN / "mkdocs"), "build", "--strict", *args], cwd=ROOT):
            return 1
        command = [PYTHON, "-m", "tools.pdf", "site"]
    else:
        command = [PYTHON, "-m", "pytest", *args]
    return subprocess.call([str(part) for part in command], cwd=ROOT)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
