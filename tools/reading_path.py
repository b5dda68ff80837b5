"""The one-day path through the guide, from ``mkdocs.yml``'s nav: its pages with their reading time, its labs,
and the totals. The home page shows it (hooks/reading_time.py); tests/pages/test_reading_time.py holds its
budgets.

The path is Home, the map, then every page of the parts in nav order, but for the pages in a nav section named
"Going deeper …" (whose front matter says ``path: deeper``). Its labs are those whose jupytext header says
``lab: path: true``, with the minutes the header gives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path as FilePath

import yaml

from tools.docblocks import SnippetExpander
from tools.reading_time import Reading, is_deeper, reading

DEEPER_SECTION = "Going deeper"
START = "Start"  # Home and the map, before the parts


@dataclass(frozen=True)
class Entry:
    src: str  # the page's path under docs/
    title: str
    part: str  # "Start", "Part I", …
    reading: Reading
    deeper: bool  # a "Going deeper" page: off the path


@dataclass(frozen=True)
class Lab:
    src: str
    title: str
    minutes: int
    difficulty: int
    path: bool


@dataclass
class Path:
    pages: dict[str, Entry] = field(default_factory=dict)
    labs: list[Lab] = field(default_factory=list)

    def core_minutes(self, part: str | None = None) -> float:
        return sum(e.reading.core for e in self.pages.values() if part in (None, e.part) and not e.deeper) / 60

    def parts(self) -> list[str]:
        return list(dict.fromkeys(entry.part for entry in self.pages.values()))

    def path_labs(self) -> list[Lab]:
        return [lab for lab in self.labs if lab.path]


def _items(nav: list) -> list[tuple[str | None, object]]:
    return [next(iter(item.items())) if isinstance(item, dict) else (None, item) for item in nav]


def _title(docs: FilePath, src: str) -> str:
    text = (docs / src).read_text(encoding="utf-8")
    found = re.search(r"^# (.+)$", re.sub(r"^```.*?^```", "", text, flags=re.S | re.M), re.M)
    return found.group(1).strip() if found else src


def lab_header(source: str) -> dict:
    """The ``lab:`` entry of a jupytext percent file's YAML header (commented lines between ``# ---``)."""
    match = re.match(r"# ---\n(.*?)\n# ---\n", source, re.S)
    if not match:
        return {}
    header = yaml.safe_load("\n".join(line[2:] for line in match.group(1).splitlines())) or {}
    return (header.get("jupyter") or {}).get("lab") or {}


def compute(config_file: FilePath, nav: list) -> Path:
    """The path of the guide whose ``mkdocs.yml`` is ``config_file``, from its ``nav``."""
    docs = config_file.parent / "docs"
    expander = SnippetExpander(config_file)
    path = Path()

    def add(src: str, title: str | None, part: str, deeper_section: bool) -> None:
        text = (docs / src).read_text(encoding="utf-8")
        deeper = is_deeper(text)
        if deeper != deeper_section:
            where = "in" if deeper_section else "outside"
            raise ValueError(f"{src} is {where} a '{DEEPER_SECTION}' section but its front matter says otherwise")
        expanded = "\n".join(expander.expand(text.splitlines()))
        path.pages[src] = Entry(src, title or _title(docs, src), part, reading(expanded), deeper)

    def walk(items: list, part: str, deeper: bool) -> None:
        for title, item in _items(items):
            if isinstance(item, list):
                walk(item, part, deeper or (title or "").startswith(DEEPER_SECTION))
            elif item.endswith(".md"):
                add(item, title, part, deeper)

    for title, item in _items(nav):
        if isinstance(item, str) and item.endswith(".md"):
            add(item, title, START, False)
        elif isinstance(item, list) and (title or "").startswith("Part "):
            walk(item, title.split(" - ")[0].split(":")[0].strip(), False)
        elif isinstance(item, list):
            for lab_title, lab in _items(item):
                if isinstance(lab, str) and lab.endswith(".py"):
                    header = lab_header((docs / lab).read_text(encoding="utf-8"))
                    if header:
                        path.labs.append(
                            Lab(
                                lab,
                                lab_title or lab,
                                int(header["minutes"]),
                                int(header["difficulty"]),
                                bool(header.get("path")),
                            )
                        )
    return path


def _minutes(seconds: float) -> str:
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def label(entry: Entry) -> str:
    """The line under a page's title."""
    core, optional = entry.reading.core, entry.reading.optional
    if entry.deeper:
        return f"Going deeper, off the path: {_minutes(core + optional)} of reading"
    more = f" · {_minutes(optional)} more in folds and exercises" if round(optional / 60) else ""
    return f"{_minutes(core)} of reading on the path{more}"


def _link(src: str, here: str) -> str:
    depth = here.count("/")
    return "../" * depth + src


def as_markdown(path: Path, here: str) -> str:
    """The path as a table for the page ``here``: each part, its pages with their minutes, the labs, the totals."""
    rows = ["| | the pages, in order, with their reading time | minutes |", "| --- | --- | ---: |"]
    for part in path.parts():
        pages = [e for e in path.pages.values() if e.part == part and not e.deeper]
        listed = " · ".join(f"[{e.title}]({_link(e.src, here)}) {round(e.reading.core / 60)}" for e in pages)
        rows.append(f"| {part} | {listed} | {round(path.core_minutes(part))} |")
    labs = path.path_labs()
    if labs:
        listed = " · ".join(f"[{lab.title}]({_link(lab.src, here)}) {lab.minutes}" for lab in labs)
        rows.append(f"| Labs | {listed} | {sum(lab.minutes for lab in labs)} |")
    reading_seconds = path.core_minutes() * 60
    lab_seconds = 60 * sum(lab.minutes for lab in labs)
    total = f"Reading: **{_minutes(reading_seconds)}**; with the labs: **{_minutes(reading_seconds + lab_seconds)}**."
    return "\n".join(rows) + "\n\n" + total + "\n"
