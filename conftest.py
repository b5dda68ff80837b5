"""Root conftest: the doc-test harness applies to docs/ as well as tests/."""

pytest_plugins = ["tests.markdown_harness", "pytester"]


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_doctest_namespace(request):
    """Each docstring's examples run in a fresh namespace, as in a reader's new Python: they import what they use.

    pytest hands a docstring a copy of its module's globals; emptying it here (the fixture runs before
    pytest adds ``getfixture``) means an example that leans on the module's names fails instead of passing.
    """
    dtest = getattr(request.node, "dtest", None)
    if dtest is not None:
        dtest.globs.clear()
