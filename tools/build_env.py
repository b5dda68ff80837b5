"""The environment the guide is built, served and tested in, for `mkdocs build` typed as it is.

``python3 dev.py`` writes a ``.pth`` file into ``.venv``'s site-packages that puts the repository on the
path (so the hooks and the tests import ``tools``, and IDEs resolve them) and calls :func:`apply` when
Python starts: a variable set here must be set before MkDocs loads the theme and the plugins, earlier than
any hook runs. A value already in the environment wins. Standard library only: ``dev.py`` imports this
before ``.venv`` exists.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BUILD_ENV = {
    "NO_MKDOCS_2_WARNING": "1",  # the theme's end-of-life banner, printed on every build
    # mkdocs-jupyter imports nbconvert's command-line app, whose class body lists the exporters it could
    # offer on the command line by loading and instantiating each one: 0.4-0.5 s of every build, for a
    # help text. With this set it lists them by name only; the pages are the same byte for byte.
    "NBCONVERT_DISABLE_CONFIG_EXPORTERS": "1",
    # The labs' kernels talk over Unix sockets (tools/jupyter/): over TCP each kernel warns that it is
    # unencrypted, and kernels started together can race for the same port ("Address already in use").
    # hooks/notebooks.py also adds it, for a build started by another Python.
    "JUPYTER_CONFIG_PATH": str(ROOT / "tools" / "jupyter"),
    # One BLAS thread, and one set of kernels, wherever the pages' code runs: the build, `mkdocs serve`, the tests and
    # their kernels. With two threads OpenBLAS splits a product's sums differently, and so do the kernels
    # NumPy's OpenBLAS picks by CPU (AVX2 "Haswell", AVX-512 "SkylakeX", ...): a few hundred
    # training steps turn that last-bit difference into other digits in the third decimal. The pages' outputs are
    # recorded with one thread and the AVX2 kernels, which every x86-64 CPU of the last decade runs.
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}
if platform.machine().lower() in {"x86_64", "amd64"}:
    BUILD_ENV["OPENBLAS_CORETYPE"] = "Haswell"

# Set for a build whose site is printed to the PDF (dev.py build, the tests' site): mkdocs-print-site-plugin
# then writes the print page, every chapter on one page, which tools/pdf.py prints and removes. It is a
# third of a build's time, and neither the site nor `mkdocs serve` shows it.
PRINT_PAGE_ENV = {"MKDOCS_PRINT_PAGE": "true"}


def apply() -> None:
    """Set every variable of :data:`BUILD_ENV` that the environment does not set already."""
    for name, value in BUILD_ENV.items():
        os.environ.setdefault(name, value)


def pth_file() -> str:
    """The ``.pth`` file's text: the repository on the path, then :func:`apply` (a line that starts with
    ``import`` is run by Python's ``site`` module)."""
    return f"{ROOT}\nimport tools.build_env; tools.build_env.apply()\n"
