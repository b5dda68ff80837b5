"""The doc-test harness must fail loudly, and point at the right line, for every way a page can be wrong."""

from __future__ import annotations

import textwrap

import numpy  # noqa: F401  (in-process runs restore sys.modules, and NumPy loads once per process)
import pytest

MKDOCS_YML = """\
site_name: harness test
markdown_extensions:
  - pymdownx.snippets:
      base_path: [.]
      check_paths: true
      dedent_subsections: true
"""

FENCE = "```"


@pytest.fixture
def project(pytester):
    """A tiny project with the harness plugin, an mkdocs.yml and a docs/ folder."""
    pytester.makeconftest("pytest_plugins = ['tests.markdown_harness']\n")
    (pytester.path / "mkdocs.yml").write_text(MKDOCS_YML)
    (pytester.path / "docs").mkdir()
    (pytester.path / "snippets").mkdir()
    return pytester


def page(project, text: str, name: str = "page.md"):
    path = project.path / "docs" / name
    path.write_text(textwrap.dedent(text).replace("'''", FENCE))
    return path


def run(project, *args):
    return project.runpytest_inprocess("docs", "-p", "no:cacheprovider", *args)


def test_matching_output_passes_and_item_names_give_line(project):
    page(
        project,
        """\
        # Title

        '''python
        print(6 * 7)
        '''

        '''output
        42
        '''
        """,
    )
    result = run(project, "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*docs/page.md::block 1 (line 3) PASSED*"])


def test_wrong_digit_fails_with_file_line_and_diff(project):
    page(
        project,
        """\
        '''python
        print([0.5, 0.25])
        '''

        '''output
        [0.5, 0.26]
        '''
        """,
    )
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*docs/page.md:1: the output differs from the output block at line 5*",
            "*-[[]0.5, 0.26]*",
            "*+[[]0.5, 0.25]*",
        ]
    )


def test_missing_output_fence_fails(project):
    page(
        project,
        """\
        '''python
        print("hello")
        '''
        """,
    )
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*docs/page.md:1: the block prints, but no ```output fence follows it*"])


def test_exception_in_block_fails_with_page_line(project):
    page(
        project,
        """\
        Some text.

        '''python
        x = 1
        raise ValueError("shapes (2, 3) and (2, 2) differ")
        '''
        """,
    )
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*docs/page.md:3: the block raised*",
            '*File "docs/page.md", line 5*',
            "*ValueError: shapes (2, 3) and (2, 2) differ*",
        ]
    )


def test_missing_snippet_file_fails(project):
    page(
        project,
        """\
        '''python
        --8<-- "snippets/nowhere.py"
        '''
        """,
    )
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*docs/page.md:1: cannot expand the Python block*nowhere.py*"])


def test_stray_output_fence_fails(project):
    page(
        project,
        """\
        '''output
        42
        '''
        """,
    )
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*docs/page.md:1: an ```output fence must follow a ```python fence*"])


def test_output_separated_by_prose_is_stray(project):
    page(
        project,
        """\
        '''python
        x = 1
        '''

        Prose in between.

        '''output
        1
        '''
        """,
    )
    result = run(project)
    result.assert_outcomes(passed=1, failed=1)


def test_blocks_do_not_share_names(project):
    page(
        project,
        """\
        '''python
        x = 21
        print(x * 2)
        '''

        '''output
        42
        '''

        '''python
        print(x * 2)
        '''

        '''output
        42
        '''
        """,
    )
    result = run(project)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*docs/page.md:10: the block raised*", "*NameError: name 'x' is not defined*"])


def test_snippets_are_expanded_in_code_and_output(project):
    (project.path / "snippets" / "area.py").write_text(
        "# --8<-- [start:square]\ndef square(x):\n    return x * x\n# --8<-- [end:square]\n\nprint(square(12))\n"
    )
    (project.path / "snippets" / "area.out").write_text("144\n")
    page(
        project,
        """\
        '''python
        --8<-- "snippets/area.py"
        '''

        '''output
        --8<-- "snippets/area.out"
        '''

        '''python
        --8<-- "snippets/area.py:square"
        print(square(3))
        '''

        '''output
        9
        '''
        """,
    )
    run(project).assert_outcomes(passed=2)
    (project.path / "snippets" / "area.out").write_text("145\n")
    result = run(project)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*-145*", "*+144*"])


def test_blocks_inside_admonitions_and_tabs_run(project):
    page(
        project,
        """\
        ??? success "Solution"

            '''python
            print(sum(range(5)))
            '''

            '''output
            11
            '''
        """,
    )
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*-11*", "*+10*"])


def test_numpy_print_options_do_not_leak_between_blocks(project):
    page(
        project,
        """\
        '''python
        import numpy as np
        np.set_printoptions(precision=2)
        print(np.array([1 / 3]))
        '''

        '''output
        [0.33]
        '''

        '''python
        import numpy as np
        print(np.array([1 / 3]))
        '''

        '''output
        [0.33333333]
        '''
        """,
    )
    run(project).assert_outcomes(passed=2)


def test_update_outputs_rewrites_page_and_out_file(project):
    (project.path / "snippets" / "ten.py").write_text("print(10)\n")
    (project.path / "snippets" / "ten.out").write_text("11\n")
    path = page(
        project,
        """\
        '''python
        print(1 + 1)
        '''

        '''output
        3
        '''

        '''python
        print("new")
        '''

        '''python
        --8<-- "snippets/ten.py"
        '''

        '''output
        --8<-- "snippets/ten.out"
        '''

        !!! note

            '''python
            print("indented")
            '''

            '''output
            wrong
            '''
        """,
    )
    run(project, "--update-outputs").assert_outcomes(passed=4)
    assert (project.path / "snippets" / "ten.out").read_text() == "10\n"
    text = path.read_text()
    assert "'''output\n2\n'''".replace("'''", FENCE) in text
    assert "'''output\nnew\n'''".replace("'''", FENCE) in text
    assert "    '''output\n    indented\n    '''".replace("'''", FENCE) in text
    run(project).assert_outcomes(passed=4)


def test_fences_inside_a_longer_fence_are_not_run(project):
    page(
        project,
        """\
        ''''markdown
        '''python
        raise SystemExit("this is an example of Markdown, not code to run")
        '''
        ''''
        """,
    )
    result = run(project)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_blocks_run_without_the_harness_future_imports(project):
    """A reader's fresh Python evaluates annotations; so must the harness (no inherited __future__)."""
    page(
        project,
        """\
        '''python
        def f(x: NotImported) -> None:
            pass
        '''
        """,
    )
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*NameError: name 'NotImported' is not defined*"])
