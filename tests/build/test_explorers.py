"""The figures a reader moves (snippets/, tools/explorers.py, hooks/explorers.py, docs/assets/javascripts/explorers.js).

Fast: every explorer builds a frame for every combination of its controls; at three or more settings each,
the numbers a frame draws (its ``data-value``s) are the numbers the library gives when this test calls it
directly; a wrong number is caught; each page stays within its byte budget. Slow: in Chromium at 375 px,
moving each control by keyboard and by setting it redraws the figure with the library's numbers, updates
``aria-valuetext``, requests nothing, and never scrolls sideways; without JavaScript the default figure is
there and the controls are not; in dark mode no mark is drawn in the background's colour.
"""

from __future__ import annotations

import functools
import gzip
import itertools
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from hooks import explorers as hook
from snippets.part_4.training import SEQ_LEN, SIZES, STREAM
from tools import chapters, explorers

chapters.import_all()  # registers every chapter's explorers

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r'<div class="explorer" data-explorer="([a-z0-9-]+)"></div>')
DATA_VALUE = re.compile(r'data-value="([^"]*)"')
BUDGET = 60_000  # bytes, gzip, that the explorers may add to one page


def drawn(svg: str) -> list[float]:
    """The library numbers a frame draws, in the order it draws them."""
    return [float(value) for value in DATA_VALUE.findall(svg)]


# --- what each explorer must draw, computed here with the library ----------------------------------


def softmax_temperature(temperature: str) -> list[float]:
    from transformer_math.softmax import softmax

    return list(softmax(np.array([2.0, 1.0, 0.1, -1.0]), temperature=float(temperature)))


def attention(query: str, causal: str, scaled: str) -> list[float]:
    from transformer_math.attention import causal_mask
    from transformer_math.softmax import softmax

    rng = np.random.default_rng(1)
    q, k, _ = (rng.normal(size=(6, 64)) for _ in range(3))
    scores = q @ k.T / (np.sqrt(64) if scaled == "on" else 1.0)
    if causal == "on":
        scores = np.where(causal_mask(6), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return [*weights[int(float(query))], *weights.ravel()]


def matrix_on_vector(angle: str) -> list[float]:
    from transformer_math.linalg import cosine_similarity

    A = np.array([[2.0, 1.0], [1.0, 2.0]])
    v = np.array([np.cos(np.radians(float(angle))), np.sin(np.radians(float(angle)))])
    values = np.linalg.eigh(A)[0][::-1]  # 3 and 1, largest first as power iteration finds them
    return [*values, *v, *(A @ v), np.linalg.norm(A @ v), cosine_similarity(v, A @ v)]


def descent(optimizer: str, lr: str) -> list[float]:
    from transformer_math.optim import SGD, Adam

    p, minimum, curvature = np.array([-4.0, -1.0]), np.array([2.0, 1.0]), np.array([1.0, 25.0])
    opt = (
        Adam([p], lr=float(lr))
        if optimizer == "adam"
        else SGD([p], lr=float(lr), momentum=0.9 * (optimizer == "momentum"))
    )
    losses = [0.5 * np.sum(curvature * (p - minimum) ** 2)]
    for _ in range(50):
        opt.step([curvature * (p - minimum)])
        losses.append(0.5 * np.sum(curvature * (p - minimum) ** 2))
    return [losses[10], losses[25], losses[50], *p]


@functools.cache
def training_run(step: str) -> tuple[float, ...]:
    """The page's model after ``step`` steps of the library's own ``train``, started afresh."""
    from transformer_math.transformer import forward, generate, init_params, loss_and_grads, make_windows, train

    inputs, targets = make_windows(STREAM, seq_len=SEQ_LEN)  # the chapter's set-up, not its training loop
    params = init_params(**SIZES)
    train(params, inputs, targets, n_heads=2, steps=int(float(step)), lr=0.01)
    loss, _ = loss_and_grads(params, inputs, targets, n_heads=2)
    weights = forward(params, inputs[0], n_heads=2)[1]["weights"][1]  # head 2
    return (loss, *weights.ravel(), *generate(params, [0], n_new=11, n_heads=2, context=SEQ_LEN))


@functools.cache
def induction_history() -> dict[int, tuple]:
    """The depth chapter's two-layer run retraced with the library: at every checkpoint, the loss on each
    copy of the test sequences, and layer 2's head 2 and layer 1's head 1 on the first of them."""
    from snippets.part_4.depth import BATCH, CHECKPOINTS, EVAL_T, LR, N_HEADS, SIZES, STEPS, TEST, repeated_tokens
    from transformer_math.softmax import log_softmax
    from transformer_math.train import make_optimizer
    from transformer_math.transformer import forward, init_params, loss_and_grads

    params = {name: w.astype(np.float32) for name, w in init_params(n_layers=2, **SIZES).items()}
    names = list(params)
    optimizer = make_optimizer(params, lr=LR, weight_decay=0.01)
    rng = np.random.default_rng(0)
    test_x, test_y = repeated_tokens(np.random.default_rng(1), TEST, EVAL_T)
    seen = {}
    for step in range(STEPS + 1):
        if step in CHECKPOINTS:
            logits, _ = forward(params, test_x, N_HEADS)
            nll = -np.take_along_axis(log_softmax(logits), test_y[..., None], axis=-1)[..., 0].mean(axis=0)
            _, cache = forward(params, test_x[0], N_HEADS)
            weights, previous = cache["h1.weights"][1], cache["weights"][0]  # layer 2's head 2, layer 1's head 1
            seen[step] = (nll[:EVAL_T].mean(), nll[EVAL_T:].mean(), weights, previous)
        if step < STEPS:
            x, y = repeated_tokens(rng, BATCH, period=rng.integers(5, 11))
            grads = loss_and_grads(params, x, y, N_HEADS)[1]
            optimizer.step([grads[name] for name in names])
    return seen


def induction_formation(step: str) -> list[float]:
    first, second, weights, previous = induction_history()[int(float(step))]
    n, period = len(weights), (len(weights) + 1) // 2
    stripe = [weights[i, i - period + 1] for i in range(period, n)]  # query i on the token after its match
    before = [previous[i, i - 1] for i in range(1, n)]  # query i on position i - 1
    return [first, second, *weights[np.tril_indices(n)], np.mean(stripe), np.mean(before)]


# name -> (the values each frame draws, at these settings)
EXPECTED = {
    "softmax-temperature": (softmax_temperature, [{"temperature": t} for t in ("0.3", "1.0", "5.0")]),
    "attention": (
        attention,
        [
            {"query": "2.0"},
            {"query": "5.0", "causal": "off"},
            {"query": "3.0", "scaled": "off"},
            {"query": "0.0", "causal": "off", "scaled": "off"},
        ],
    ),
    "matrix-on-vector": (matrix_on_vector, [{"angle": a} for a in ("0.0", "45.0", "135.0", "300.0")]),
    "descent": (
        descent,
        [{"optimizer": "sgd", "lr": "0.03"}, {"optimizer": "sgd", "lr": "0.1"}]
        + [{"optimizer": "momentum", "lr": "0.01"}, {"optimizer": "adam", "lr": "0.3"}],
    ),
    "training-run": (lambda step: list(training_run(step)), [{"step": s} for s in ("0.0", "25.0", "300.0")]),
    "induction-formation": (induction_formation, [{"step": s} for s in ("0.0", "150.0", "300.0")]),
}


@functools.cache
def made() -> dict[str, explorers.Explorer]:
    """Every explorer as the build computed it: read back from the build's cache, so that no explorer is
    computed twice in a run (tests that use it ask for ``built_site`` first)."""
    values = chapters.computed("explorers", "tools.explorers:chapter_explorers")
    return {name: explorers.Explorer.from_json(data) for chapter in values.values() for name, data in chapter.items()}


@pytest.fixture(scope="module", params=sorted(explorers.EXPLORERS))
def built(request, built_site) -> explorers.Explorer:
    return made()[request.param]


def pages() -> dict[str, list[str]]:
    """Each Markdown page that places an explorer -> the names it places."""
    found = {}
    for path in sorted((ROOT / "docs").rglob("*.md")):
        names = PLACEHOLDER.findall(path.read_text(encoding="utf-8"))
        if names:
            found[path.relative_to(ROOT / "docs").as_posix()] = names
    return found


def test_every_combination_has_a_frame(built):
    assert built.controls, f"{built.name} has no control"
    for combination in itertools.product(*(control.values for control in built.controls)):
        svg = built.frames[built.keys["|".join(combination)]]
        root = ET.fromstring(svg)  # well-formed
        assert root.get("viewBox") and root.get("width") == "100%" and root.get("aria-label")
        assert drawn(svg), f"{built.name} at {combination} draws no library number"
    assert len(built.frames) == len(set(built.frames)), "identical frames are stored once"
    assert built.default_key in built.keys


def test_what_frames_use_is_painted_by_attributes(built):
    """A <use> draws copies that the page's CSS does not reach (Chromium drew the descent explorer's contours
    as black blobs): every element a frame uses carries its own fill and stroke, and no class."""
    if not built.shared:
        return
    used = {href[1:] for frame in built.frames for href in re.findall(r'<use href="(#[^"]+)"', frame)}
    root = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{built.shared}</svg>')
    targets = [element for element in root.iter() if element.get("id") in used]
    assert {element.get("id") for element in targets} == used, f"{built.name}: a frame uses a missing id"
    for target in targets:
        for element in [node for node in target.iter() if node is not target]:
            assert element.get("class") is None, f"{built.name}: #{target.get('id')} styles by class"
            assert element.get("fill") and element.get("stroke"), f"{built.name}: #{target.get('id')} unpainted"


def test_every_control_speaks(built):
    for control in built.controls:
        assert control.label and len(control.texts) == len(control.values) >= 2
        assert all(control.texts), f"{built.name}.{control.name} has a value without words"


def test_frames_draw_the_library_values(built):
    compute, settings = EXPECTED[built.name]
    assert len(settings) >= 3
    for setting in settings:
        expected = compute(**{**full_settings(built, built.default_key), **setting})
        assert drawn(built.frame(**setting)) == pytest.approx(expected, rel=1e-5, abs=5.1e-5), (built.name, setting)
    frames = {built.frame(**setting) for setting in settings}
    assert len(frames) == len(settings), f"{built.name}: different settings must draw different frames"


def test_a_wrong_value_is_caught():
    built = explorers.make("softmax-temperature")
    svg = built.frame(temperature="1.0")
    tampered = svg.replace('data-value="0.6381"', 'data-value="0.6391"', 1)
    assert tampered != svg
    with pytest.raises(AssertionError):
        assert drawn(tampered) == pytest.approx(softmax_temperature("1.0"), rel=1e-5, abs=5.1e-5)


def test_every_explorer_is_on_a_page_and_tested():
    placed = [name for names in pages().values() for name in names]
    assert sorted(set(placed)) == sorted(explorers.EXPLORERS)
    assert sorted(EXPECTED) == sorted(explorers.EXPLORERS)


@pytest.fixture(scope="module")
def hook_with_frames(built_site):
    """The hook as a build leaves it after ``on_files``: every explorer's frames, as the build computed them."""
    hook._explorers.update({name: explorer.to_json() for name, explorer in made().items()})
    return hook


def on_page_content(hook, html: str, page: str) -> str:
    return hook.on_page_content(html, page=_Page(page), config=None, files=None)


@pytest.mark.parametrize("page", sorted(pages()))
def test_page_weight(page, hook_with_frames):
    """What the explorers add to a page, gzipped: the figures with their frames, and the script."""
    added = "".join(on_page_content(hook_with_frames, PLACEHOLDER_HTML(name), page) for name in pages()[page])
    script = (ROOT / "docs" / "assets" / "javascripts" / "explorers.js").read_bytes()
    size = len(gzip.compress(added.encode())) + len(gzip.compress(script))
    assert size <= BUDGET, f"{page}: the explorers add {size} bytes gzipped"


def PLACEHOLDER_HTML(name: str) -> str:  # noqa: N802 - reads as the placeholder it is
    return f'<div class="explorer" data-explorer="{name}"></div>'


class _Page:
    def __init__(self, src: str) -> None:
        self.url = src.removesuffix(".md").removesuffix("index") + "/"
        self.canonical_url = "https://transformer-math.github.io/mathematics-for-transformers/" + self.url


def test_hook_writes_figure_controls_and_frames(hook_with_frames):
    out = on_page_content(
        hook_with_frames, "<p>before</p>" + PLACEHOLDER_HTML("softmax-temperature"), "part-2/softmax.md"
    )
    assert out.count("<figure") == 1 and "data-search-exclude" in out
    assert '<form class="explorer__controls" hidden>' in out  # only the script shows the controls
    assert 'aria-valuetext="τ = 1"' in out and "<label" in out
    assert 'class="explorer__paper"' in out and "/part-2/softmax/#xp-softmax-temperature" in out  # paper's caption
    assert out.endswith('<script src="../../assets/javascripts/explorers.js" defer></script>')
    data = json.loads(re.search(r'<script type="application/json"[^>]*>(.*?)</script>', out, re.S).group(1))
    assert drawn(data["frames"][data["keys"]["1.0"]]) == drawn(out.split("<form")[0])  # default inline
    assert on_page_content(hook_with_frames, "<p>none</p>", "x.md") == "<p>none</p>"


# --- in Chromium (slow) ------------------------------------------------------------------------------

# Runs in the page: the numbers the figure now draws, what its controls say, and where they are drawn.
READ_JS = """
(figure) => ({
  svg: figure.querySelector(".explorer__frame").innerHTML,
  frame: figure.getAttribute("data-frame"),
  valuetext: [...figure.querySelectorAll('input[type="range"]')].map(input => input.getAttribute("aria-valuetext")),
  readout: [...figure.querySelectorAll("output")].map(output => output.textContent),
})
"""
# Runs in the page: marks whose colour is the page's background colour (invisible), and marks with no colour.
INVISIBLE_JS = """
(figure) => {
  const background = getComputedStyle(document.querySelector(".md-main") || document.body).backgroundColor;
  const bodyBackground = getComputedStyle(document.body).backgroundColor;
  return [...figure.querySelectorAll("[data-value]:not(desc), text, polyline, line")].map(mark => {
    const style = getComputedStyle(mark);
    const paint = mark.tagName === "polyline" || mark.tagName === "line" ? style.stroke : style.fill;
    return {tag: mark.tagName, paint, background: bodyBackground, other: background};
  }).filter(m => m.paint === "none" || m.paint === m.background || m.paint === "rgba(0, 0, 0, 0)");
}
"""


def full_settings(built: explorers.Explorer, key: str) -> dict[str, str]:
    return dict(zip((control.name for control in built.controls), key.split("|")))


def set_control(figure, control: explorers.Control, value: str) -> None:
    field = figure.locator(f'[name="{control.name}"]')
    if control.kind == "range":
        field.fill(str(control.values.index(value)))
    elif control.kind == "toggle":
        field.set_checked(value == "on")
    else:
        field.select_option(value)


def check_figure(page, built: explorers.Explorer, problems: list[str]) -> None:
    figure = page.locator(f"figure#xp-{built.name}")
    figure.scroll_into_view_if_needed()
    compute, settings = EXPECTED[built.name]
    where = f"{built.name}"
    # by keyboard: focus each control and press a key, as a reader would
    for control in built.controls:
        before = figure.evaluate(READ_JS)
        field = figure.locator(f'[name="{control.name}"]')
        field.focus()
        at_end = control.kind == "range" and field.input_value() == str(len(control.values) - 1)
        key = {"range": "ArrowLeft" if at_end else "ArrowRight", "toggle": "Space", "choice": "ArrowDown"}[control.kind]
        page.keyboard.press(key)
        after = figure.evaluate(READ_JS)
        if after["frame"] == before["frame"]:
            problems.append(f"{where}: {key} on {control.name} did not change the setting")
        elif after["svg"] == before["svg"] and built.keys[after["frame"]] != built.keys[before["frame"]]:
            problems.append(f"{where}: {key} on {control.name} did not redraw the figure")
        if control.kind == "range":
            index = int(field.input_value())
            if control.texts[index] not in after["valuetext"] or control.texts[index] not in after["readout"]:
                problems.append(
                    f"{where}: aria-valuetext/read-out {after['valuetext']} is not {control.texts[index]!r}"
                )
        numbers = drawn(after["svg"])
        expected = compute(**full_settings(built, after["frame"]))
        if numbers != pytest.approx(expected, rel=1e-5, abs=5.1e-5):
            problems.append(f"{where} at {after['frame']}: draws {numbers}, the library gives {expected}")
    # by setting the controls: the library's values at three or more settings
    for setting in settings:
        full = {**{control.name: control.default for control in built.controls}, **setting}
        for control in built.controls:
            set_control(figure, control, full[control.name])
        now = figure.evaluate(READ_JS)
        expected = compute(**full)
        if drawn(now["svg"]) != pytest.approx(expected, rel=1e-5, abs=5.1e-5):
            problems.append(f"{where} at {full}: draws {drawn(now['svg'])}, the library gives {expected}")


@pytest.fixture(scope="module")
def site_server(built_site):
    from tools import browser as bs

    with bs.SiteServer(built_site, bs.site_prefix()) as server:
        yield server


@pytest.fixture(scope="module")
def chromium():
    """One browser for the module; each check opens a fresh context in it (a new profile, as a first visit)."""
    from playwright.sync_api import sync_playwright

    from tools import browser as bs

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=bs.chromium_path(), headless=True, args=bs.CHROMIUM_ARGS)
        yield browser
        browser.close()


def open_page(browser, server, path: str, **options):
    from tools import browser as bs

    context = browser.new_context(viewport=bs.PHONE, **options)
    context.add_init_script(bs.FORGET_PALETTE_JS)
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    bs.block_external_hosts(context, server.origin)
    page = context.new_page()
    page.goto(server.base + path.removesuffix(".md").removesuffix("index") + "/")
    page.wait_for_load_state("networkidle")
    return context, page, requests


@pytest.mark.parametrize("md", sorted(pages()))
def test_reader_moves_the_figures(md, site_server, chromium):
    from tools import browser as bs

    problems: list[str] = []
    context, page, requests = open_page(chromium, site_server, md)
    try:
        for name in pages()[md]:
            page.locator(f"figure#xp-{name}").scroll_into_view_if_needed()
            page.wait_for_timeout(500)  # the chapter's lazy figures near it load now, not when a control moves
            loaded = len(requests)
            check_figure(page, made()[name], problems)
            # lazy <img>s scrolled past, and the favicon Chromium fetches on its own schedule after load
            moved = [url for url in requests[loaded:] if "/figures/" not in url and "favicon" not in url]
            if moved:
                problems.append(f"moving the controls of {name} made requests: {moved}")
        problems += [f"requested {url}" for url in requests if not url.startswith(site_server.origin + "/")]
        overflow = page.evaluate(bs.OVERFLOW_JS)
        if overflow["scrollWidth"] > overflow["width"] + 1:
            problems.append(f"scrolls sideways at 375 px: {overflow['culprits']}")
    finally:
        context.close()
    assert not problems, f"{md}:\n" + "\n".join(problems)


@pytest.mark.parametrize("md", sorted(pages()))
def test_without_javascript_the_default_figure_stays(md, site_server, chromium):
    context, page, _ = open_page(chromium, site_server, md, java_script_enabled=False)
    try:
        for name in pages()[md]:
            built = made()[name]
            figure = page.locator(f"figure#xp-{name}")
            svg = figure.locator(".explorer__frame").inner_html()
            compute, _ = EXPECTED[name]
            assert drawn(svg) == pytest.approx(compute(**full_settings(built, built.default_key)), rel=1e-5, abs=5.1e-5)
            assert figure.locator("svg.xp-svg").is_visible()
            assert not figure.locator("form.explorer__controls").is_visible(), "controls that cannot work"
    finally:
        context.close()


@pytest.mark.parametrize("md", sorted(pages()))
def test_marks_show_in_dark_mode(md, site_server, chromium):
    context, page, _ = open_page(chromium, site_server, md, color_scheme="dark")
    try:
        assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == "slate"
        for name in pages()[md]:
            invisible = page.locator(f"figure#xp-{name}").evaluate(INVISIBLE_JS)
            assert not invisible, f"{name}: marks drawn in the background colour in dark mode: {invisible[:3]}"
    finally:
        context.close()
