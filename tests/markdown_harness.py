"""pytest plugin: run every ```python block of the guide and check what it prints.

For each Markdown page under ``docs/``:

* every ```python fence is one test item, named ``docs/PAGE.md::block N (line L)``;
* its body is expanded by pymdownx.snippets configured exactly as in ``mkdocs.yml``, so a block whose
  body is ``--8<-- "snippets/x.py"`` or a section of ``src/`` runs the very text the page shows;
* it runs alone, in a fresh namespace, as a reader who copies it would run it;
* the ```output fence right after it (only blank lines between; its body may itself be a snippet
  such as ``--8<-- "snippets/x.out"``) is the expected stdout. A block that prints without an output
  fence fails; so does an output fence that follows no Python block.

``pytest --update-outputs`` rewrites expected outputs in place -- in the page, or in the ``.out``
file the page includes -- adds missing output fences and drops ones for blocks that print nothing.
"""

from __future__ import annotations

import builtins
import difflib
import importlib.util
import traceback
from pathlib import Path

import pytest

from tools.docblocks import Example, Fence, SnippetExpander, normalize, pair_examples, run_block


class BlockFailure(Exception):
    """A block printed something other than its output fence, or the page is malformed."""


class BlockRaised(Exception):
    """The block itself raised; carries the traceback cut down to the block's own frames."""


# --- pytest collection --------------------------------------------------------------------------


def pytest_addoption(parser):
    parser.addoption(
        "--update-outputs",
        action="store_true",
        default=False,
        help="rewrite the output fences of the guide (in pages and .out snippets) with what the blocks print",
    )


def pytest_configure(config):
    config._doc_updates = Updates()
    config.addinivalue_line("markers", "docs: a code block of the guide")


def pytest_collect_file(file_path: Path, parent):
    root = Path(parent.config.rootpath)
    if file_path.suffix == ".md" and (root / "docs") in file_path.parents:
        return MarkdownPage.from_parent(parent, path=file_path)
    return None


_expanders: dict[Path, SnippetExpander] = {}


def expander_for(page: Path, root: Path) -> SnippetExpander:
    config_file = next((folder / "mkdocs.yml" for folder in page.parents if (folder / "mkdocs.yml").exists()), None)
    if config_file is None:
        raise BlockFailure(f"no mkdocs.yml above {page}")
    if config_file not in _expanders:
        _expanders[config_file] = SnippetExpander(config_file)
    return _expanders[config_file]


class MarkdownPage(pytest.File):
    def collect(self):
        text = self.path.read_text(encoding="utf-8")
        examples, stray = pair_examples(text)
        for example in examples:
            yield CodeBlock.from_parent(
                self, name=f"block {example.number} (line {example.code.open_line})", example=example
            )
        for fence in stray:
            yield StrayOutput.from_parent(
                self, name=f"output fence without a Python block (line {fence.open_line})", fence=fence
            )


TORCH_SKIP = "PyTorch is not installed; this block runs with the reference extra (pip install -e .[reference])"


def needs_missing_torch(code_lines: list[str]) -> bool:
    """A block that imports torch, where torch cannot be imported: reported as skipped, never silently passed."""
    imports_torch = any(line.startswith(("import torch", "from torch")) for line in code_lines)
    return imports_torch and importlib.util.find_spec("torch") is None


class CodeBlock(pytest.Item):
    def __init__(self, *, example: Example, **kwargs):
        super().__init__(**kwargs)
        self.example = example
        self.add_marker("docs")

    @property
    def relpath(self) -> str:
        return str(self.path.relative_to(self.config.rootpath))

    def _expand(self, lines: list[str], what: str, line: int) -> list[str]:
        try:
            return expander_for(self.path, self.config.rootpath).expand(lines)
        except Exception as err:  # pymdownx.snippets.SnippetMissingError and friends
            raise BlockFailure(f"{self.relpath}:{line}: cannot expand the {what}: {err}") from None

    def runtest(self):
        fence = self.example.code
        code_lines = self._expand(fence.body, "Python block", fence.open_line)
        if needs_missing_torch(code_lines):
            pytest.skip(f"{self.relpath}:{fence.open_line}: {TORCH_SKIP}")
        if code_lines == fence.body:
            # keep the page's line numbers in tracebacks
            filename, code = self.relpath, "\n" * fence.open_line + "\n".join(code_lines)
        else:
            filename, code = (
                f"{self.relpath} (block at line {fence.open_line}, snippet-expanded)",
                "\n".join(code_lines),
            )
        try:
            printed = run_block(code, filename, {"__name__": "__main__", "__builtins__": builtins})
        except BaseException as err:
            frames = traceback.extract_tb(err.__traceback__)
            own = [frame for frame in frames if frame.filename == filename]
            first_own = frames.index(own[0]) if own else len(frames)
            text = "".join(traceback.format_list(frames[first_own:])) + "".join(
                traceback.format_exception_only(type(err), err)
            )
            raise BlockRaised(f"{self.relpath}:{fence.open_line}: the block raised\n{text}") from None
        self._check_output(printed)

    def _check_output(self, printed: str):
        fence, output = self.example.code, self.example.output
        updates: Updates = self.config._doc_updates
        update = self.config.getoption("update_outputs")
        got = normalize(printed)
        if output is None:
            if not got:
                return
            if update:
                updates.insert_after(self.path, fence, got)
                return
            raise BlockFailure(
                f"{self.relpath}:{fence.open_line}: the block prints, but no ```output fence follows it "
                f"(line {fence.close_line}).\nIt printed:\n{got}\n\nRun `pytest --update-outputs` to add it."
            )
        expected_lines = self._expand(output.body, "output block", output.open_line)
        expected = normalize("\n".join(expected_lines))
        if got == expected:
            return
        if update:
            target = expander_for(self.path, self.config.rootpath).single_file(output.body)
            if not got:
                updates.remove(self.path, output)
            elif target is not None:
                updates.write_file(target, got)
            else:
                updates.replace(self.path, output, got)
            return
        diff = "\n".join(
            difflib.unified_diff(
                expected.split("\n"),
                got.split("\n"),
                fromfile=f"shown on the page ({self.relpath}:{output.open_line})",
                tofile="printed by the block",
                lineterm="",
            )
        )
        if not got:
            diff = "(the block printed nothing)\n" + diff
        raise BlockFailure(
            f"{self.relpath}:{fence.open_line}: the output differs from the output block at line {output.open_line}\n{diff}"
            "\n\nRun `pytest --update-outputs` to re-record it, then review the diff."
        )

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, (BlockFailure, BlockRaised)):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, self.example.code.open_line - 1, f"{self.relpath}:{self.example.code.open_line}"


class StrayOutput(pytest.Item):
    def __init__(self, *, fence: Fence, **kwargs):
        super().__init__(**kwargs)
        self.fence = fence

    def runtest(self):
        relpath = self.path.relative_to(self.config.rootpath)
        raise BlockFailure(
            f"{relpath}:{self.fence.open_line}: an ```output fence must follow a ```python fence "
            "directly (only blank lines between); this one follows none"
        )

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, BlockFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, self.fence.open_line - 1, f"{self.path.name}:{self.fence.open_line}"


# --- --update-outputs ---------------------------------------------------------------------------


class Updates:
    """Edits collected while blocks run, written when the session ends (bottom-up, so lines stay valid)."""

    def __init__(self) -> None:
        self.page_edits: dict[Path, list[tuple[int, int, list[str]]]] = {}
        self.files: dict[Path, str] = {}

    def _fence_lines(self, indent: str, text: str) -> list[str]:
        return [f"{indent}```output", *[f"{indent}{line}" if line else "" for line in text.split("\n")], f"{indent}```"]

    def replace(self, page: Path, output: Fence, text: str) -> None:
        body = [f"{output.indent}{line}" if line else "" for line in text.split("\n")]
        self.page_edits.setdefault(page, []).append((output.open_line, output.close_line - 1, body))

    def insert_after(self, page: Path, code: Fence, text: str) -> None:
        self.page_edits.setdefault(page, []).append(
            (code.close_line, code.close_line, ["", *self._fence_lines(code.indent, text)])
        )

    def remove(self, page: Path, output: Fence) -> None:
        self.page_edits.setdefault(page, []).append((output.open_line - 1, output.close_line, []))

    def write_file(self, path: Path, text: str) -> None:
        self.files[path] = text + "\n"

    def apply(self) -> list[str]:
        changed = []
        for page, edits in self.page_edits.items():
            lines = page.read_text(encoding="utf-8").split("\n")
            for start, end, new in sorted(edits, key=lambda edit: edit[0], reverse=True):
                lines[start:end] = new  # start/end: 0-based slice of the lines to replace
            page.write_text("\n".join(lines), encoding="utf-8")
            changed.append(f"{page} ({len(edits)} block{'s' * (len(edits) != 1)})")
        for path, text in self.files.items():
            path.write_text(text, encoding="utf-8")
            changed.append(str(path))
        return changed


def pytest_sessionfinish(session):
    updates = getattr(session.config, "_doc_updates", None)
    if updates is not None and session.config.getoption("update_outputs", False):
        session.config._doc_updated = updates.apply()


def pytest_terminal_summary(terminalreporter, config):
    changed = getattr(config, "_doc_updated", None)
    if changed:
        terminalreporter.section("outputs re-recorded: review them with `git diff`")
        for line in changed:
            terminalreporter.write_line(line)
