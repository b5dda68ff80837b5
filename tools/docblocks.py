"""Reading the guide's Markdown the way the site does: fences, example/output pairs, snippets.

Shared by the doc-test harness (``tests/markdown_harness.py``) and by build steps that need the
same view of a page's code blocks (for example the per-chapter notebooks).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from tools.mkdocs_yml import snippet_options

PYTHON_LANGS = {"python", "py", "python3"}
OPEN_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*?)[ \t]*$")
SNIPPET_LINE = re.compile(r'^[ \t]*-{1,}8<-{1,}[ \t]+"?(?P<path>[^"\s]+)"?[ \t]*$')


# --- parsing ------------------------------------------------------------------------------------


@dataclass
class Fence:
    """One fenced block of a Markdown page; line numbers are 1-based lines of the page."""

    lang: str
    title: str
    indent: str
    open_line: int
    close_line: int
    body: list[str]  # dedented by the fence's own indentation, not yet snippet-expanded


def _parse_info(info: str) -> tuple[str, str]:
    """The language and title of a fence's info string: ``python title="x"`` or ``{ .python title="x" }``."""
    info = info.strip()
    if info.startswith("{") and info.endswith("}"):
        info = info[1:-1].strip()
    try:
        words = shlex.split(info)
    except ValueError:
        words = info.split()
    lang = words[0].lstrip(".").lower() if words else ""
    title = next((word.split("=", 1)[1] for word in words[1:] if word.startswith("title=")), "")
    return lang, title


def parse_fences(text: str) -> list[Fence]:
    """All top-level fences of ``text``, including fences indented inside admonitions, tabs and details."""
    lines = text.split("\n")
    fences: list[Fence] = []
    index = 0
    while index < len(lines):
        match = OPEN_FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        indent, marker = match.group("indent"), match.group("fence")
        closing = re.compile(rf"^[ \t]*{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$")
        end = index + 1
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        lang, title = _parse_info(match.group("info"))
        body = [line[len(indent) :] if line.startswith(indent) else line.lstrip() for line in lines[index + 1 : end]]
        fences.append(Fence(lang, title, indent, index + 1, end + 1, body))
        index = end + 1
    return fences


@dataclass
class Example:
    """A Python block and the output block that belongs to it (if any)."""

    number: int
    code: Fence
    output: Fence | None


def pair_examples(text: str) -> tuple[list[Example], list[Fence]]:
    """Pair each Python fence with the output fence right after it; also return stray output fences."""
    lines = text.split("\n")
    examples: list[Example] = []
    stray: list[Fence] = []
    fences = parse_fences(text)
    for position, fence in enumerate(fences):
        if fence.lang in PYTHON_LANGS:
            following = fences[position + 1] if position + 1 < len(fences) else None
            only_blank_between = following is not None and all(
                not line.strip() for line in lines[fence.close_line : following.open_line - 1]
            )
            output = following if following and following.lang == "output" and only_blank_between else None
            examples.append(Example(len(examples) + 1, fence, output))
        elif fence.lang == "output":
            owner = examples[-1] if examples else None
            if owner is None or owner.output is not fence:
                stray.append(fence)
    return examples, stray


# --- snippets, exactly as the site expands them -------------------------------------------------


class SnippetExpander:
    """pymdownx.snippets with the options of mkdocs.yml, run over one block's lines."""

    def __init__(self, config_file: Path) -> None:
        from markdown import Markdown

        options = snippet_options(config_file)
        here = os.getcwd()
        os.chdir(config_file.parent)  # relative base paths mean "relative to the project", as in a build
        try:
            self.markdown = Markdown(extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": options})
        finally:
            os.chdir(here)
        self.preprocessor = self.markdown.preprocessors["snippet"]

    def expand(self, lines: list[str]) -> list[str]:
        return self.preprocessor.run(list(lines))

    def python_blocks(self, page_text: str) -> list[str]:
        """A page's Python blocks, snippet-expanded as the harness runs them (and the page shows them), in order."""
        return ["\n".join(self.expand(fence.body)) for fence in parse_fences(page_text) if fence.lang in PYTHON_LANGS]

    def single_file(self, lines: list[str]) -> Path | None:
        """The file a body includes when the body is one whole-file snippet line (``--8<-- "a.out"``)."""
        content = [line for line in lines if line.strip()]
        if len(content) != 1:
            return None
        match = SNIPPET_LINE.match(content[0])
        if not match or ":" in match.group("path").replace("\\:", ""):
            return None
        for base in self.preprocessor.base_path:
            candidate = Path(base) / match.group("path")
            if candidate.is_file():
                return candidate
        return None


# --- running a block ----------------------------------------------------------------------------


def normalize(text: str) -> str:
    """Output as compared: trailing spaces of each line and trailing blank lines do not count."""
    return "\n".join(line.rstrip() for line in text.rstrip().split("\n")) if text.strip() else ""


def run_block(code: str, filename: str, namespace: dict) -> str:
    """Execute ``code`` in ``namespace`` and return what it printed; NumPy's print options are restored."""
    import numpy  # here, not at the top: every build imports this module (hooks/notebooks.py) and runs no block

    saved_options = numpy.get_printoptions()
    stdout = io.StringIO()
    try:
        with contextlib.redirect_stdout(stdout):
            exec(
                compile(code, filename, "exec", dont_inherit=True), namespace
            )  # a reader runs it without our __future__ imports
    finally:
        numpy.set_printoptions(**saved_options)
    return stdout.getvalue()
