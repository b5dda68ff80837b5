"""Root conftest: the doc-test harness applies to docs/ as well as tests/."""

from tools import build_env

# The build's environment, set before NumPy loads its BLAS, also where .venv's .pth file has not set it (a Python
# without dev.py's set-up, the PyTorch job's): one BLAS thread per test process (pytest-xdist already runs a
# process per core, and BLAS threads on top oversubscribe them: a small training block ran five times slower) and
# the kernels the pages' outputs were recorded with.
build_env.apply()

pytest_plugins = ["tests.markdown_harness", "pytester"]
# The labs are notebooks (jupytext), not modules: --doctest-modules would import each, running its cells.
collect_ignore_glob = ["docs/labs/*.py"]

import pytest  # noqa: E402

from tests import background  # noqa: E402
from tests.conftest import CHECKS_IN_PROCESS  # noqa: E402


def pytest_runtest_setup(item):
    """Here, not in tests/conftest.py: a conftest's test hooks see only the tests under its folder, and the pages'
    blocks (docs/) and the library's examples (src/) are among the first that may start the deferred jobs."""
    if not item.nodeid.startswith(CHECKS_IN_PROCESS):
        background.start_deferred()


@pytest.fixture(autouse=True)
def _fresh_doctest_namespace(request):
    """Each docstring's examples run in a fresh namespace, as in a reader's new Python: they import what they use.

    pytest hands a docstring a copy of its module's globals; emptying it here (the fixture runs before
    pytest adds ``getfixture``) means an example that leans on the module's names fails instead of passing.
    """
    dtest = getattr(request.node, "dtest", None)
    if dtest is not None:
        dtest.globs.clear()
