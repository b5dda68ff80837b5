"""Root conftest: the doc-test harness applies to docs/ as well as tests/."""

pytest_plugins = ["tests.markdown_harness", "pytester"]
