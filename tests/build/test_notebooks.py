"""Every chapter as a notebook: generated from the page, run top to bottom in one namespace, outputs as on the page.

``hooks/notebooks.py`` fills each code cell's output with the page's output block instead of running
the code at build time. That is truthful only while the notebook, run top to bottom in one kernel,
prints exactly those outputs -- the doc tests run each block in its own namespace, a notebook runs
them all in one. This runs every chapter's notebook as a kernel runs it (tests/build/notebook_runner.py: one
namespace per notebook, a fork each, several at once) and compares each cell's stdout with the page's output
block. The labs run in real kernels, at build time and in tests/build/test_labs.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest

from tests.background import background, run
from tests.markdown_harness import needs_missing_torch
from tools.chapter_notebook import chapter_notebook
from tools.docblocks import normalize, pair_examples

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
CHAPTERS = sorted(path for path in DOCS.glob("part-*/*.md") if path.name != "index.md")


def notebook_of(page: Path):
    src_uri = page.relative_to(DOCS).as_posix()
    return chapter_notebook(page.read_text(encoding="utf-8"), src_uri, "https://example.org/guide/", "")


def stdout_of(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")


@background(nice=5, threads_here=True)  # it builds the notebooks in a thread here, beside no lab check
def executed() -> dict[Path, list[dict]]:
    """What each code cell of every chapter's notebook printed, the notebook run top to bottom in one namespace
    (tests/build/notebook_runner.py: a fork per notebook, not a kernel each)."""
    cells = {str(page): [c.source for c in notebook_of(page).cells if c.cell_type == "code"] for page in CHAPTERS}
    result = run([sys.executable, "-m", "tests.build.notebook_runner"], cwd=ROOT, input=json.dumps(cells))
    if result.returncode != 0:
        pytest.fail(f"the notebook runner failed:\n{result.stderr[-3000:]}", pytrace=False)
    return {Path(page): printed for page, printed in json.loads(result.stdout).items()}


@pytest.mark.parametrize("page", CHAPTERS, ids=lambda page: page.relative_to(DOCS).as_posix())
def test_notebook_has_every_block_and_output_of_the_page(page):
    notebook = notebook_of(page)
    nbformat.validate(notebook)
    examples, _ = pair_examples(page.read_text(encoding="utf-8"))
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert [cell.metadata["page_line"] for cell in code] == [example.code.open_line for example in examples]
    for cell, example in zip(code, examples):
        assert "--8<--" not in cell.source, f"line {example.code.open_line}: snippet not expanded"
        assert bool(cell.outputs) == (example.output is not None)


@pytest.mark.parametrize("page", CHAPTERS, ids=lambda page: page.relative_to(DOCS).as_posix())
def test_notebook_run_in_one_kernel_prints_the_page_outputs(page, executed):
    code = [cell for cell in notebook_of(page).cells if cell.cell_type == "code"]
    assert len(executed[page]) == len(code)
    problems = []
    for before, after in zip(code, executed[page]):
        if "page_line" not in before.metadata:
            continue
        line = before.metadata["page_line"]
        if needs_missing_torch(before.source.splitlines()):
            continue  # the page's test run reports this block as skipped, with its reason
        if "error" in after:
            problems.append(f"block at line {line} raised {after['error']}")
        elif normalize(after["stdout"]) != normalize(stdout_of(before)):
            problems.append(
                f"block at line {line} printed\n{normalize(after['stdout'])}\n"
                f"but the page shows\n{normalize(stdout_of(before))}"
            )
    assert not problems, f"{page.relative_to(ROOT)}:\n" + "\n\n".join(problems)


# --- the generator on a page made for it ---------------------------------------------------------

SAMPLE = """# A sample

Text with $x^2$ and a [link](other.md#part) and a [local one](#here), and a [link that
spans lines](../part-1/index.md).

![A figure of A = [[2, 1], [1, 2]]](../figures/curve.light.svg#only-light)
![A figure of A = [[2, 1], [1, 2]]](../figures/curve.dark.svg#only-dark)

```python
x = 2
print(x)
```

```output
2
```

```python title="Continued from the block above"
print(x + 1)
```

```output
3
```

!!! note "Keep in mind"

    Prose inside a note.

    ```text
    !!! not an admonition inside a fence
    ```

??? success "Solution"

    Only prose here, folded.

??? success "Solution with code"

    Some prose.

    ```python
    print("hidden")
    ```

    ```output
    hidden
    ```

The end.
"""


def test_generator_turns_a_page_into_cells():
    svg = b"<svg xmlns='http://www.w3.org/2000/svg'></svg>"
    notebook = chapter_notebook(
        SAMPLE,
        "part-9/sample.md",
        "https://example.org/guide/",
        "https://github.com/o/r",
        image_data=lambda path: svg if path == "figures/curve.light.svg" else None,
    )
    nbformat.validate(notebook)
    kinds = [cell.cell_type for cell in notebook.cells]
    assert kinds == ["markdown", "markdown", "code", "code", "markdown", "code", "markdown"]
    intro, prose = notebook.cells[0].source, notebook.cells[1].source
    assert "https://example.org/guide/part-9/sample/" in intro
    assert "[link](https://example.org/guide/part-9/other/#part)" in prose
    assert "[local one](https://example.org/guide/part-9/sample/#here)" in prose
    assert "[link that\nspans lines](https://example.org/guide/part-1/)" in prose
    assert "![A figure of A = [[2, 1], [1, 2]]](attachment:curve.light.svg)" in prose and "dark" not in prose
    assert notebook.cells[1].attachments["curve.light.svg"]["image/svg+xml"]
    first, second = notebook.cells[2], notebook.cells[3]
    assert (first.source, stdout_of(first)) == ("x = 2\nprint(x)", "2\n")
    assert (second.source, stdout_of(second)) == ("print(x + 1)", "3\n")
    quoted = notebook.cells[4].source
    assert "> **Keep in mind**" in quoted and "> Prose inside a note." in quoted
    assert "> !!! not an admonition inside a fence" in quoted
    assert "<details><summary>Solution</summary>" in quoted and "</details>" in quoted
    assert "    Only prose" not in quoted, "admonition content must be dedented, not an indented code block"
    hidden = notebook.cells[5]
    assert hidden.metadata["jupyter"] == {"source_hidden": True} and hidden.metadata["tags"] == ["solution"]
    assert stdout_of(hidden) == "hidden\n"
    assert "tags" not in first.metadata and "jupyter" not in first.metadata
    assert notebook.cells[6].source.strip() == "The end."


def test_pages_showing_library_code_show_it_expanded():
    page = '# Library code\n\n```python\n--8<-- "src/transformer_math/linalg.py:dot"\n```\n'
    notebook = chapter_notebook(page, "part-9/library.md")
    shown = [cell for cell in notebook.cells if "page_line" in cell.metadata][0].source
    assert shown.startswith("def dot(") and "--8<--" not in shown


def test_snippets_in_prose_are_expanded_where_they_stand():
    page = '# Prose snippet\n\n!!! note "The library\'s"\n\n    --8<-- "src/transformer_math/linalg.py:dot"\n'
    prose = chapter_notebook(page, "part-9/prose.md").cells[1].source
    assert "> **The library's**" in prose and "> def dot(" in prose and "8<" not in prose


def test_generator_expands_snippets_as_the_page_shows_them(tmp_path):
    pages = [page for page in CHAPTERS if "--8<--" in page.read_text(encoding="utf-8")]
    if not pages:
        pytest.skip("no chapter includes a snippet yet")
    for page in pages:
        for cell in notebook_of(page).cells:
            if cell.cell_type == "code":
                assert "--8<--" not in cell.source and "8<" not in stdout_of(cell)
