"""Figures the reader moves: every frame computed here, at build time, by the library.

An explorer is a function registered with ``@explorer("NAME")`` that returns an :class:`Explorer`: its
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

from transformer_math.attention import causal_mask, scaled_dot_product_attention
from transformer_math.information import cross_entropy, entropy
from transformer_math.linalg import cosine_similarity, matmul_loops, norm, power_iteration
from transformer_math.optim import SGD, Adam, AdamW
from transformer_math.softmax import softmax
from transformer_math.transformer import forward, generate, init_params, loss_and_grads, make_windows

EXPLORERS: dict[str, Callable[[], Explorer]] = {}


def explorer(name: str):
    """Register a function that builds the explorer ``name``."""

    def register(function):
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
    return EXPLORERS[name]()


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


# --- softmax and temperature (docs/part-2/softmax.md) ---------------------------------------------


# --8<-- [start:softmax-temperature]
def softmax_at_temperature(temperature):
    """The probabilities of cat, dog, bird and fish at one temperature, and their entropy in nats."""
    logits = np.array([2.0, 1.0, 0.1, -1.0])  # cat, dog, bird, fish
    probs = softmax(logits, temperature=temperature)
    return probs, entropy(probs)


# --8<-- [end:softmax-temperature]

TEMPERATURES = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 7.0, 10.0]


@explorer("softmax-temperature")
def softmax_temperature_explorer() -> Explorer:
    def draw(temperature: str) -> str:
        t = float(temperature)
        probs, h = softmax_at_temperature(t)
        body = bars(["cat", "dog", "bird", "fish"], probs, 40, 30, 300, 150)
        body.append(text(20, 18, f"logits 2, 1, 0.1, -1 at temperature {t:g}", anchor="start"))
        # the entropy as a bar from 0 to its largest possible value, ln 4 (uniform over four tokens)
        width = 300 * float(h) / np.log(4)
        body.append('<rect class="xp-track" x="40" y="216" width="300" height="12"/>')
        body.append(
            f'<rect class="xp-2" x="40" y="216" width="{width:.1f}" height="12" data-value="{num(h)}">'
            f"<title>entropy {num(h)} nats</title></rect>"
        )
        body.append(text(40, 246, f"entropy {num(h)} nats (at most ln 4 = {num(np.log(4))})", anchor="start"))
        return svg(360, 256, f"Softmax probabilities at temperature {t:g}", body)

    control = slider("temperature", "Temperature", TEMPERATURES, 1.0, lambda t: f"τ = {t:g}")
    caption = "Softmax of the logits of cat, dog, bird and fish, and the entropy of the result."
    return build("softmax-temperature", caption, [control], draw)


# --- cross entropy against the probability of the right token (docs/part-2/information.md) --------


# --8<-- [start:cross-entropy-probability]
def loss_for_probability(p_right):
    """A three-token prediction that gives ``p_right`` to the right token (the first) and splits the rest;
    returns the prediction and its cross entropy against the one-hot target."""
    target = np.array([1.0, 0.0, 0.0])
    prediction = np.array([p_right, (1 - p_right) / 2, (1 - p_right) / 2])
    return prediction, cross_entropy(target, prediction)


# --8<-- [end:cross-entropy-probability]

PROBABILITIES = [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99]


@explorer("cross-entropy-probability")
def cross_entropy_explorer() -> Explorer:
    x0, y0, w, h, top = 40, 20, 300, 130, 5.0  # the curve: p on 0..1, loss on 0..top nats
    curve = [(p, loss_for_probability(p)[1]) for p in np.linspace(0.007, 1.0, 80)]
    points = [(x0 + w * p, y0 + h - h * min(loss, top) / top) for p, loss in curve]

    def draw(p: str) -> str:
        prediction, loss = loss_for_probability(float(p))
        body = [line(x0, y0, x0, y0 + h), line(x0, y0 + h, x0 + w, y0 + h), polyline(points)]
        for tick in range(0, 6):
            body.append(text(x0 - 6, y0 + h - h * tick / top + 4, str(tick), anchor="end"))
        for tick in (0, 0.5, 1):
            body.append(text(x0 + w * tick, y0 + h + 16, f"{tick:g}"))
        body.append(text(x0 + w / 2 + 40, y0 + h + 16, "p(right token)", anchor="start"))
        body.append(text(x0 + 4, y0 - 6, "loss, nats", anchor="start"))
        x, y = x0 + w * float(p), y0 + h - h * min(loss, top) / top
        body.append(dot(x, y, num(loss), f"p = {float(p):g}: loss {num(loss)} nats", cls="xp-2"))
        body.append(text(min(x + 8, x0 + w - 4), y - 10, f"{num(loss)} nats", anchor="end" if x > 250 else "start"))
        body += bars(["right", "other", "other"], prediction, 40, 200, 300, 80)
        return svg(360, 306, f"Cross entropy {num(loss)} nats when the right token gets {float(p):g}", body)

    control = slider("p", "Probability of the right token", PROBABILITIES, 0.5, lambda p: f"p = {p:g}")
    caption = "The loss -ln p of one prediction, against the probability p it gives the right token."
    return build("cross-entropy-probability", caption, [control], draw)


# --- attention: the query, the causal mask and the scaling (docs/part-4/attention.md) -------------

TOKENS = ["the", "cat", "sat", "on", "the", "mat"]


# --8<-- [start:attention-weights]
def attention_weights(causal, scaled):
    """The 6 x 6 attention weights of random queries and keys of width d_k = 64 for "the cat sat on the mat",
    with or without the causal mask, and with or without the division by sqrt(d_k)."""
    rng = np.random.default_rng(1)
    d_k = 64
    q, k, v = (rng.normal(size=(6, d_k)) for _ in range(3))
    if not scaled:
        q = q * np.sqrt(d_k)  # the library divides q k^T by sqrt(d_k); this undoes it: softmax(q k^T)
    mask = causal_mask(6) if causal else None
    _, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    return weights


# --8<-- [end:attention-weights]


@explorer("attention")
def attention_explorer() -> Explorer:
    cell, x0 = 34, 110

    def draw(query: str, causal: str, scaled: str) -> str:
        i = int(float(query))
        weights = attention_weights(causal == "on", scaled == "on")
        word = f'"{TOKENS[i]}" ({i + 1})'
        body = [text(20, 18, f"query {word} attends to", anchor="start")]
        body += bars([f"{t}" for t in TOKENS], weights[i], 20, 30, 330, 110)
        top = 200
        body.append(text(20, top - 8, "all six queries (rows) over the keys (columns)", anchor="start"))
        body += heatmap(weights, x0, top + 16, cell, lambda r, c: f"{TOKENS[r]} ({r + 1}) to {TOKENS[c]} ({c + 1})")
        for n, token in enumerate(TOKENS):
            body.append(text(x0 + n * cell + cell / 2, top + 10, token, size=11))
            body.append(text(x0 - 6, top + 16 + n * cell + cell / 2 + 4, f"{token} ({n + 1})", anchor="end", size=11))
        body.append(
            f'<rect class="xp-2 xp-line" x="{x0 - 2}" y="{top + 16 + i * cell - 2}" width="{6 * cell + 3}" '
            f'height="{cell + 3}" stroke-width="3"/>'
        )
        return svg(360, top + 16 + 6 * cell + 6, f"Attention weights of query {word}", body)

    controls = [
        slider("query", "Query token", range(6), 2, lambda i: f'"{TOKENS[int(i)]}" ({int(i) + 1} of 6)'),
        toggle("causal", "Causal mask", True, "off: every key", "on: earlier keys only"),
        toggle("scaled", "Divide by the square root of d_k", True, "off: softmax(q k^T)", "on: softmax(q k^T / 8)"),
    ]
    caption = (
        "Attention weights of random queries and keys of width 64, from the library's scaled_dot_product_attention."
    )
    return build("attention", caption, controls, draw)


# --- a matrix acting on a vector (docs/part-1/eigenvalues.md) -------------------------------------


# --8<-- [start:matrix-on-vector]
def matrix_on_vector(angle_degrees):
    """The unit vector v at an angle, its image A v, how long A v is, and the cosine between v and A v
    (1 or -1 when A only stretches v: v is then an eigenvector)."""
    A = np.array([[2.0, 1.0], [1.0, 2.0]])
    angle = np.radians(angle_degrees)
    v = np.array([np.cos(angle), np.sin(angle)])
    Av = matmul_loops(A, v.reshape(2, 1)).ravel()
    return v, Av, norm(Av), cosine_similarity(v, Av)


def eigen_directions():
    """Both eigenvalues and eigenvectors of A, by power iteration and then deflation."""
    A = np.array([[2.0, 1.0], [1.0, 2.0]])
    value_1, u_1 = power_iteration(A, steps=500)
    value_2, u_2 = power_iteration(A - value_1 * np.outer(u_1, u_1), steps=500)
    return [(value_1, u_1), (value_2, u_2)]


# --8<-- [end:matrix-on-vector]

ANGLES = list(range(0, 360, 15))


@explorer("matrix-on-vector")
def matrix_explorer() -> Explorer:
    cx, cy, unit = 180, 195, 38  # the origin, and pixels per unit
    at = lambda x, y: (cx + unit * x, cy - unit * y)  # noqa: E731 - plane to picture
    circle = [at(np.cos(t), np.sin(t)) for t in np.linspace(0, 2 * np.pi, 73)]
    ellipse = [at(*matrix_on_vector(a)[1]) for a in np.linspace(0, 360, 73)]
    eigen = eigen_directions()

    def draw(angle: str) -> str:
        v, Av, length, cos = matrix_on_vector(float(angle))
        body = [line(*at(-4, 0), *at(4, 0)), line(*at(0, -3.6), *at(0, 3.6))]
        body.append(polyline(circle, cls="xp-line xp-axis"))
        body.append(polyline(ellipse, cls="xp-line xp-1"))
        for value, u in eigen:
            body.append(line(*at(*(-4 * u)), *at(*(4 * u)), dashed=True))
            x, y = at(*(3.3 * u * (1 if u[1] >= 0 else -1)))
            body.append(text(x, y - 4, f"λ = {num(value, 2)}", cls="xp-ink", value=num(value), size=12))
        body.append(arrow(*at(0, 0), *at(*v), cls="xp-0"))
        body.append(arrow(*at(0, 0), *at(*Av), cls="xp-2"))
        marks = [(v[0], "v x"), (v[1], "v y"), (Av[0], "A v x"), (Av[1], "A v y"), (length, "|A v|"), (cos, "cos")]
        body += [f'<desc data-value="{num(x)}">{what} = {num(x)}</desc>' for x, what in marks]
        body.append(
            text(
                10,
                18,
                f"v = ({num(v[0], 2)}, {num(v[1], 2)})   A v = ({num(Av[0], 2)}, {num(Av[1], 2)})",
                anchor="start",
            )
        )
        only = abs(abs(cos) - 1) < 1e-9
        verdict = f"only stretched: A v = {num(length, 2)} v" if only else f"turned: cos(v, A v) = {num(cos, 3)}"
        body.append(text(10, 36, f"|A v| = {num(length, 3)}, {verdict}", anchor="start"))
        return svg(360, 345, f"The vector at {float(angle):g} degrees and its image under A", body)

    control = slider("angle", "Angle of v", ANGLES, 30, lambda a: f"{a:g} degrees")
    caption = "A = [[2, 1], [1, 2]] maps the unit circle to an ellipse; the dashed lines are its eigenvectors."
    return build("matrix-on-vector", caption, [control], draw)


# --- gradient descent on a valley: learning rate and optimizer (docs/part-3/optimizers.md) --------


# --8<-- [start:descent]
def descend(optimizer, lr, steps=50):
    """The path of one optimizer on f(x, y) = ((x - 2)^2 + 25 (y - 1)^2) / 2 from (-4, -1), and the
    loss at every point of it."""
    curvature, minimum = np.array([1.0, 25.0]), np.array([2.0, 1.0])
    p = np.array([-4.0, -1.0])
    if optimizer == "adam":
        opt = Adam([p], lr=lr)
    else:
        opt = SGD([p], lr=lr, momentum=0.9 if optimizer == "momentum" else 0.0)
    path = [p.copy()]
    for _ in range(steps):
        opt.step([curvature * (p - minimum)])  # the gradient of f
        path.append(p.copy())
    path = np.array(path)
    losses = 0.5 * np.sum(curvature * (path - minimum) ** 2, axis=1)
    return path, losses


# --8<-- [end:descent]

RATES = [0.001, 0.003, 0.01, 0.02, 0.03, 0.05, 0.07, 0.079, 0.085, 0.1, 0.15, 0.3, 0.5, 1.0]
OPTIMIZERS = {"sgd": "SGD", "momentum": "SGD with momentum 0.9", "adam": "Adam"}


@explorer("descent")
def descent_explorer() -> Explorer:
    x0, y0, unit = 20, 44, 35  # the plot: x from -5 to 4, y from -2 to 3, at 35 px per unit
    at = lambda x, y: (unit * (x + 5), unit * (3 - y))  # noqa: E731 - plane to the plot's pixels
    contours = []
    for level in [0.5, 2, 6, 14, 28]:  # f = level: an ellipse around the minimum (2, 1)
        t = np.linspace(0, 2 * np.pi, 61)
        ring = [at(2 + np.sqrt(2 * level) * np.cos(a), 1 + np.sqrt(2 * level / 25) * np.sin(a)) for a in t]
        coordinates = " ".join(f"{x:.1f},{y:.1f}" for x, y in ring)
        # Attributes, not classes: the page's CSS does not reach the copies a <use> draws.
        contours.append(f'<polyline points="{coordinates}" fill="none" stroke="currentColor" stroke-opacity="0.45"/>')
    # Drawn once on the page, used by all 42 frames: the contours, and the dot a path draws at every step.
    dot_at_step = '<marker id="xp-step" markerUnits="userSpaceOnUse" markerWidth="5" markerHeight="5" refX="2.5" '
    dot_at_step += 'refY="2.5"><circle class="xp-2" cx="2.5" cy="2.5" r="2.5"/></marker>'
    shared = f'<defs><g id="xp-descent-contours">{"".join(contours)}</g>{dot_at_step}</defs>'

    def draw(optimizer: str, lr: str) -> str:
        path, losses = descend(optimizer, float(lr))
        points = [at(x, y) for x, y in path]
        # Whole pixels (the plot is 315 px wide), each step relative to the last: short, and gzip finds repeats.
        # A path flung out is drawn to 1,000 px away (three plots), along its last step: off the plot, the rest is
        # not seen, and it may overflow to inf.
        points, far = np.array(points), 1_000
        out = np.flatnonzero(~np.all(np.abs(points) < far, axis=1))
        if out.size:
            last, step = points[out[0] - 1], points[out[0]] - points[out[0] - 1]
            end = [last + step * (far / np.max(np.abs(step)))] if np.all(np.isfinite(step)) else []
            points = np.vstack([points[: out[0]], *end])
        pixels = np.rint(points).astype(np.int64)
        steps = f"M{pixels[0, 0]} {pixels[0, 1]}l" + " ".join(f"{dx} {dy}" for dx, dy in np.diff(pixels, axis=0))
        marks = 'marker-start="url(#xp-step)" marker-mid="url(#xp-step)" marker-end="url(#xp-step)"'
        plot = ['<use href="#xp-descent-contours"/>', f'<path class="xp-line xp-2" d="{steps}" {marks}/>']
        plot.append(f'<circle class="xp-0" cx="{at(2, 1)[0]:.1f}" cy="{at(2, 1)[1]:.1f}" r="4"/>')
        body = [text(x0, 16, f"{OPTIMIZERS[optimizer]}, learning rate {float(lr):g}, 50 steps", anchor="start")]
        body.append(
            f'<svg x="{x0}" y="{y0 - 20}" width="{9 * unit}" height="{5 * unit}" viewBox="0 0 {9 * unit} {5 * unit}">'
            f'<rect class="xp-line xp-axis" x="0" y="0" width="{9 * unit}" height="{5 * unit}"/>{"".join(plot)}</svg>'
        )
        diverged = not losses[-1] < losses[0]
        rows = [(f"loss after {n:2d} steps", losses[n]) for n in (10, 25, 50)]
        for i, (words, value) in enumerate(rows):
            body.append(text(x0, 230 + 18 * i, f"{words}: {float(value):.3g}", anchor="start", value=sig(value)))
        end = f"ends at ({path[-1, 0]:.3g}, {path[-1, 1]:.3g})" + (", flung out: the steps grow" if diverged else "")
        body.append(text(x0, 230 + 18 * 3, end, anchor="start"))
        body += [f'<desc data-value="{sig(v)}">final {c} = {sig(v)}</desc>' for c, v in zip("xy", path[-1])]
        return svg(360, 296, f"{OPTIMIZERS[optimizer]} at learning rate {float(lr):g}", body)

    controls = [
        choice("optimizer", "Optimizer", OPTIMIZERS, "sgd"),
        slider("lr", "Learning rate", RATES, 0.03, lambda r: f"{r:g}"),
    ]
    caption = "50 steps from (-4, -1) towards the minimum (2, 1) of a narrow valley, its contours drawn in grey."
    return build("descent", caption, controls, draw, shared)


# --- one training run of the tiny Transformer, step by step (docs/part-4/training.md) -------------

VOCAB = ["the", "cat", "sat", "on", "mat"]
SNAPSHOTS = [0, 5, 10, 15, 20, 25, 30, 40, 50, 75, 100, 150, 200, 250, 300]


# --8<-- [start:training-run]
def training_run(snapshots):
    """One training run of the page's tiny Transformer (the loop of `train`, 300 AdamW steps), and at each
    step in ``snapshots``: the losses so far, head 2's attention on the first window, and greedy text."""
    stream = [VOCAB.index(word) for word in "the cat sat on the mat the cat sat on the mat the cat".split()]
    inputs, targets = make_windows(stream, seq_len=8)
    params = init_params(vocab_size=5, d_model=8, d_ff=32, seed=0)
    names = list(params)
    optimizer = AdamW([params[name] for name in names], lr=0.01, weight_decay=0.01)
    losses, seen = [], {}
    for step in range(max(snapshots) + 1):
        loss, grads = loss_and_grads(params, inputs, targets, n_heads=2)
        losses.append(loss)  # the loss after `step` updates
        if step in snapshots:
            _, cache = forward(params, inputs[0], n_heads=2)
            text = generate(params, [0], n_new=11, n_heads=2, context=8)
            seen[step] = (list(losses), cache["weights"][1], text)
        optimizer.step([grads[name] for name in names])
    return seen


# --8<-- [end:training-run]


@explorer("training-run")
def training_explorer() -> Explorer:
    run = training_run(SNAPSHOTS)
    x0, y0, w, h = 40, 30, 300, 110  # the loss curve: steps 0..300, log10 loss from -2 to 0.5
    at = lambda step, loss: (x0 + w * step / 300, y0 + h * (0.5 - np.log10(loss)) / 2.5)  # noqa: E731
    window = "the cat sat on the mat the cat".split()  # the first window of the stream

    def draw(step: str) -> str:
        k = int(float(step))
        losses, weights, tokens = run[k]
        body = [line(x0, y0, x0, y0 + h), line(x0, y0 + h, x0 + w, y0 + h)]
        for value in (0.01, 0.1, 1):
            body.append(text(x0 - 4, at(0, value)[1] + 4, f"{value:g}", anchor="end", size=11))
        body.append(text(x0 + w, y0 + h + 14, "step 300", anchor="end", size=11))
        body.append(text(x0 + 4, y0 - 8, "training loss (log scale)", anchor="start"))
        body.append(polyline([at(i, loss) for i, loss in enumerate(losses)]))
        cx, cy = at(k, losses[-1])
        body.append(dot(cx, cy, num(losses[-1]), f"loss at step {k}: {num(losses[-1])}", cls="xp-2", r=4))
        label = f"step {k}: loss {num(losses[-1])}"
        body.append(text(cx + 6 if cx < 200 else cx - 6, cy - 8, label, anchor="start" if cx < 200 else "end"))
        top, cell, left = 182, 22, 80
        body.append(text(20, top - 14, "head 2 on the first window (rows attend to columns)", anchor="start"))
        body += heatmap(weights, left, top, cell, lambda r, c: f"{window[r]} ({r + 1}) to {window[c]} ({c + 1})")
        for n, word in enumerate(window):
            body.append(text(left - 4, top + n * cell + cell / 2 + 4, word, anchor="end", size=11))
            body.append(text(left + n * cell + cell / 2, top + 8 * cell + 12, word, size=9))
        words = "".join(f'<tspan data-value="{t}">{VOCAB[t]} </tspan>' for t in tokens)
        body.append(text(20, top + 8 * cell + 34, 'greedy text from "the":', anchor="start"))
        body.append(f'<text class="xp-ink" x="20" y="{top + 8 * cell + 52}" font-size="12">{words}</text>')
        return svg(360, top + 8 * cell + 62, f"The training run at step {k}", body)

    control = slider("step", "Training step", SNAPSHOTS, 300, lambda s: f"step {s:g} of 300")
    caption = "One run of 300 AdamW steps: the loss so far, one head's attention, and the text it writes greedily."
    return build("training-run", caption, [control], draw)
