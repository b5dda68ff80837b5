"""Figures the reader moves, the machinery: every frame is computed at build time, by the library.

An explorer lives in its chapter's module under ``snippets/`` (``tools/chapters.py``): a function
registered with ``@explorer("NAME")`` that returns an :class:`Explorer`: its
controls (a slider over a fixed list of values, a toggle, or a choice) and one SVG frame for every
combination of their values. ``hooks/explorers.py`` puts the default frame into the page (the figure a
reader without JavaScript sees) and ships all frames as JSON; ``docs/assets/javascripts/explorers.js``
only picks the frame that matches the controls. No mathematics runs in the browser.

Every number in a frame comes from a ``transformer_math`` function, called in a small *compute* function
that the chapter shows (between ``--8<--`` markers). Every mark that shows a library number carries it as
``data-value``, so tests read back what is drawn and compare it with the library. Colours are CSS classes
(``xp-ink``, ``xp-1``, ... in docs/assets/stylesheets/extra.css) built on the theme's variables, so one SVG
serves the light and the dark theme.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from tools import chapters

EXPLORERS: dict[str, Callable[[], Explorer]] = {}


def explorer(name: str):
    """Register a function that builds the explorer ``name``."""

    def register(function):
        if name in EXPLORERS and EXPLORERS[name].__module__ != function.__module__:
            raise ValueError(
                f"explorer {name!r} is registered by {EXPLORERS[name].__module__} and {function.__module__}"
            )
        EXPLORERS[name] = function
        return function

    return register


# --- controls and frames --------------------------------------------------------------------------


@dataclass
class Control:
    """One control: ``kind`` is "range" (a slider over ``values``), "toggle" (off, on) or "choice".

    ``values`` are the keys the frames are filed under; ``texts`` say each value in words (the slider's
    ``aria-valuetext`` and the read-out beside it).
    """

    name: str
    label: str
    kind: str
    values: list[str]
    texts: list[str]
    default: str

    def __post_init__(self):
        if self.kind not in ("range", "toggle", "choice"):
            raise ValueError(f"control {self.name}: kind must be range, toggle or choice, got {self.kind!r}")
        if len(self.values) != len(self.texts) or self.default not in self.values:
            raise ValueError(f"control {self.name}: one text per value, and the default among the values")


def slider(name: str, label: str, numbers, default, text: Callable[[float], str]) -> Control:
    """A slider over ``numbers``; each value's key is ``repr`` of the number."""
    values = [repr(float(x)) for x in numbers]
    return Control(name, label, "range", values, [text(float(x)) for x in numbers], repr(float(default)))


def toggle(name: str, label: str, default: bool, off: str, on: str) -> Control:
    return Control(name, label, "toggle", ["off", "on"], [off, on], "on" if default else "off")


def choice(name: str, label: str, options: dict[str, str], default: str) -> Control:
    return Control(name, label, "choice", list(options), list(options.values()), default)


@dataclass
class Explorer:
    """Controls, a caption, and one SVG per combination of control values (identical frames stored once)."""

    name: str
    caption: str
    controls: list[Control]
    keys: dict[str, int] = field(default_factory=dict)  # "value|value|..." -> index into frames
    frames: list[str] = field(default_factory=list)
    shared: str = ""  # SVG <defs> that every frame draws with <use href="#id">: on the page once, not per frame

    @property
    def default_key(self) -> str:
        return "|".join(control.default for control in self.controls)

    def frame(self, **settings: str) -> str:
        """The SVG drawn for ``settings`` (control name -> value key); unnamed controls at their default."""
        key = "|".join(settings.get(control.name, control.default) for control in self.controls)
        return self.frames[self.keys[key]]

    @classmethod
    def from_json(cls, data: dict) -> Explorer:
        """The explorer that :meth:`to_json` wrote (as the build caches it)."""
        controls = [Control(**control) for control in data["controls"]]
        return cls(data["name"], data["caption"], controls, dict(data["keys"]), list(data["frames"]), data["shared"])

    def to_json(self) -> dict:
        controls = [vars(control) for control in self.controls]
        return {
            "name": self.name,
            "caption": self.caption,
            "controls": controls,
            "keys": self.keys,
            "frames": self.frames,
            "shared": self.shared,
        }


def build(name: str, caption: str, controls: list[Control], draw: Callable[..., str], shared: str = "") -> Explorer:
    """Call ``draw(**settings)`` for every combination of the controls' values."""
    built = Explorer(name, caption, controls, shared=shared)
    seen: dict[str, int] = {}
    for combination in itertools.product(*(control.values for control in controls)):
        svg = draw(**{control.name: value for control, value in zip(controls, combination)})
        built.keys["|".join(combination)] = seen.setdefault(svg, len(seen))
    built.frames = list(seen)
    return built


def make(name: str) -> Explorer:
    if name not in EXPLORERS:
        chapters.import_all()  # an explorer is registered when its chapter's module is imported
    return EXPLORERS[name]()


def chapter_explorers(module: str) -> dict[str, dict]:
    """Every explorer of a chapter's module, built: ``{name: explorer as JSON}`` (what the build caches)."""
    return {name: build_explorer().to_json() for name, build_explorer in chapters.registered(EXPLORERS, module).items()}


# --- small SVG helpers ----------------------------------------------------------------------------


def num(x: float, digits: int = 4) -> str:
    """A library number as it is written into ``data-value`` and shown: rounded, no ``-0``."""
    value = round(float(x), digits)
    return f"{value + 0.0:.{digits}f}"


def sig(x: float) -> str:
    """A number that may be large or tiny (a loss that diverges): six significant digits."""
    return f"{float(x):.6g}"


def svg(width: int, height: int, label: str, body: list[str]) -> str:
    """An SVG that scales to its column (viewBox, width 100%); ``label`` is its accessible name."""
    return (
        f'<svg class="xp-svg" viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="{html.escape(label)}">{"".join(body)}</svg>'
    )


def text(x: float, y: float, words: str, anchor: str = "middle", cls: str = "xp-ink", value=None, size=None) -> str:
    data = f' data-value="{value}"' if value is not None else ""
    font = f' font-size="{size}"' if size else ""
    return f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{font}{data}>{html.escape(words)}</text>'


def line(x1, y1, x2, y2, cls: str = "xp-axis", dashed: bool = False) -> str:
    dash = ' stroke-dasharray="5 4"' if dashed else ""
    return f'<line class="{cls}" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"{dash}/>'


def polyline(points, cls: str = "xp-line xp-1") -> str:
    coordinates = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    return f'<polyline class="{cls}" points="{coordinates}"/>'


def dot(x, y, value: str, title: str, cls: str = "xp-1", r: float = 5) -> str:
    return f'<circle class="{cls}" cx="{x:.1f}" cy="{y:.1f}" r="{r}" data-value="{value}"><title>{html.escape(title)}</title></circle>'


def arrow(x1, y1, x2, y2, cls: str = "xp-1") -> str:
    """A line from (x1, y1) with a head at (x2, y2)."""
    angle, size = np.arctan2(y2 - y1, x2 - x1), 8
    left = (x2 - size * np.cos(angle - 0.4), y2 - size * np.sin(angle - 0.4))
    right = (x2 - size * np.cos(angle + 0.4), y2 - size * np.sin(angle + 0.4))
    head = f"{x2:.1f},{y2:.1f} {left[0]:.1f},{left[1]:.1f} {right[0]:.1f},{right[1]:.1f}"
    return f'{line(x1, y1, x2, y2, cls=f"xp-line {cls}")}<polygon class="{cls}" points="{head}"/>'


def heatmap(values, x0: float, y0: float, cell: float, title: Callable[[int, int], str]) -> list[str]:
    """A grid of cells, each as opaque as its value (0 .. 1), over a track colour so 0 still shows."""
    marks = []
    for i, row in enumerate(values):
        for j, value in enumerate(row):
            x, y, shown = x0 + j * cell, y0 + i * cell, num(value)
            marks.append(
                f'<rect class="xp-track" x="{x:.1f}" y="{y:.1f}" width="{cell - 1:.1f}" height="{cell - 1:.1f}"/>'
            )
            marks.append(
                f'<rect class="xp-1" x="{x:.1f}" y="{y:.1f}" width="{cell - 1:.1f}" height="{cell - 1:.1f}" '
                f'fill-opacity="{float(value):.3f}" stroke="none" data-value="{shown}">'
                f"<title>{html.escape(title(i, j))}: {shown}</title></rect>"
            )
    return marks


def bars(labels: list[str], values, x0: float, y0: float, width: float, height: float, top: float = 1.0) -> list[str]:
    """Vertical bars of ``values`` (0 .. ``top``) over ``labels``, each with its number above it."""
    marks, step = [], width / len(labels)
    for i, (label, value) in enumerate(zip(labels, values)):
        shown = num(value)
        h = height * float(value) / top
        x = x0 + i * step + step * 0.15
        marks.append(
            f'<rect class="xp-bar xp-1" x="{x:.1f}" y="{y0 + height - h:.1f}" width="{step * 0.7:.1f}" '
            f'height="{h:.1f}" data-value="{shown}"><title>{html.escape(label)}: {shown}</title></rect>'
        )
        marks.append(text(x + step * 0.35, y0 + height - h - 5, num(value, 3)))
        marks.append(text(x + step * 0.35, y0 + height + 16, label))
    marks.append(line(x0, y0 + height, x0 + width, y0 + height))
    return marks
