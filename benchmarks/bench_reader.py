#!/usr/bin/env python3
"""The guide's performance budget: each figure measured on this machine, beside its target, met or MISSED.

    (cd benchmarks && npm ci)   # MathJax 3 and Lighthouse, benchmark-only
    .venv/bin/python benchmarks/bench_reader.py [--loads 7] [--lighthouse-runs 1] [--repeat N] [--pages part-2/softmax/,...]
        [--baseline /tmp/site-before] [--skip math,weight,lighthouse,build,doctest]

The browser parts (math, weight, lighthouse) load pages cold in Debian's chromium at 375 px from 127.0.0.1 with gzip, a
--baseline site (built from an earlier commit) beside the fresh build, interleaved; build and doc-test times are interleaved
runs in dev.BUILD_ENV. The budget is printed as it is judged; every figure goes to .cache/bench/report.json.
"""

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from statistics import median, median_low

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
HERE, BUILD = ROOT / "benchmarks", ROOT / ".cache" / "bench"  # what it writes (git-ignored)
SHIPPED = BUILD / "site-shipped"
sys.path.insert(0, str(ROOT))  # this script is run directly, not by dev.py, which would set PYTHONPATH to the root

from dev import BUILD_ENV  # noqa: E402
from tools import browser as bs  # noqa: E402
from tools import mkdocs_yml  # noqa: E402
from tools.docblocks import SnippetExpander, pair_examples  # noqa: E402

ENV = {**os.environ, **BUILD_ENV}  # the environment dev.py builds in
LIGHTHOUSE = HERE / "node_modules" / "lighthouse" / "cli" / "index.js"
CONFIG = mkdocs_yml.load()  # mkdocs.yml as MkDocs reads it, its !!python/name tags kept for mkdocs_yml.dump

# mkdocs-material's documented client-side setups ("Math" in its reference), with the scripts from npm.
KATEX_SETUP = r"""document$.subscribe(({ body }) => {
  renderMathInElement(body, { delimiters: [{ left: "$$", right: "$$", display: true }, { left: "$", right: "$", display: false },
    { left: "\\(", right: "\\)", display: false }, { left: "\\[", right: "\\]", display: true }] })
})"""
MATHJAX_SETUP = r"""window.MathJax = {
  tex: { inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]], processEscapes: true, processEnvironments: true },
  options: { ignoreHtmlClass: ".*|", processHtmlClass: "arithmatex" } };
document$.subscribe(() => {
  MathJax.startup.output.clearCache(); MathJax.typesetClear(); MathJax.texReset(); MathJax.typesetPromise() })"""
KATEX, MATHJAX = ROOT / "node_modules/katex/dist", HERE / "node_modules/mathjax/es5"
VARIANTS = {  # name: (the npm package's files, those the pages load after setup.js, in order, setup.js)
    "katex-client": (KATEX, ["katex.min.css", "katex.min.js", "contrib/auto-render.min.js"], KATEX_SETUP),
    "mathjax3": (MATHJAX, ["tex-mml-chtml.js"], MATHJAX_SETUP),
}

# Installed before any page script. Math-ready: the article is parsed, every formula holds KaTeX HTML or a MathJax
# container, and after that the fonts are ready, in ms from the start of navigation. Also the layout shifts.
MEASURE_JS = r"""
(() => {
  const m = window.__bench = {complete: null, ready: null, cls: 0};
  new PerformanceObserver(l => { for (const e of l.getEntries()) if (!e.hadRecentInput) m.cls += e.value; })
    .observe({type: "layout-shift", buffered: true});
  const check = () => {  // the article is parsed once the theme's footer, after it, exists
    if (m.complete !== null || !document.querySelector("footer.md-footer, body > footer")) return;
    const formulas = document.querySelectorAll(".arithmatex");
    for (const f of formulas) if (!f.querySelector(".katex, mjx-container")) return;
    m.complete = performance.now();
    for (const f of formulas) f.getBoundingClientRect();  // lay every formula out now, so that all its fonts are asked for
    document.fonts.ready.then(() => { m.ready = performance.now(); });
  };
  new MutationObserver(check).observe(document, {childList: true, subtree: true});
  for (const type of ["DOMContentLoaded", "readystatechange"]) document.addEventListener(type, check);
})();
"""

# The floor for `pytest docs`, run by `python -c` from the root: the expanded blocks executed as the harness executes
# them (tools.docblocks.run_block, each alone in a fresh namespace), without pytest.
PLAIN_RUNNER = r"""
import builtins, json, sys
from tools.docblocks import run_block
for block in json.load(open(sys.argv[1], encoding="utf-8")):
    try:
        run_block(block["code"], block["name"], {"__name__": "__main__", "__builtins__": builtins})
    except Exception as err:  # pytest would count it as failed; the floor runs on
        print(f"{block['name']}: {type(err).__name__}: {err}", file=sys.stderr)
"""


def say(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def timed(command: list, ok=(0,), stdin: str = "") -> float:
    """The seconds `command` takes, run from the root in ENV; any exit status not in `ok` stops the benchmark."""
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, env=ENV, input=stdin, capture_output=True, text=True)
    if result.returncode not in ok:
        raise SystemExit(f"{' '.join(map(str, command[:6]))} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return time.perf_counter() - start


def build(site: Path, config: dict | None = None) -> float:
    """`mkdocs build --strict`, as the site ships; or, not strict, of `config`, on stdin (so its paths are from the root)."""
    say(f"building {site.relative_to(ROOT)}")
    options = ["--no-strict", "--config-file", "-"] if config else ["--strict"]
    stdin = mkdocs_yml.dump(config) if config else ""
    return timed([sys.executable, "-m", "mkdocs", "build", "--site-dir", site, *options], stdin=stdin)


def build_variant(name: str) -> Path:
    """The site with formulas rendered in the browser: mkdocs.yml without hooks/katex_render.py, plus the variant."""
    (package, files, setup), site = VARIANTS[name], BUILD / f"site-{name}"
    assets = [f"assets/{name}/{file}" for file in ["setup.js", *files]]
    hooks = [hook for hook in CONFIG["hooks"] if "katex_render" not in hook]
    css = [file for file in assets if file.endswith(".css")] + CONFIG.get("extra_css", [])
    scripts = CONFIG.get("extra_javascript", []) + [file for file in assets if file.endswith(".js")]
    build(site, {**CONFIG, "hooks": hooks, "extra_css": css, "extra_javascript": scripts})
    shutil.copytree(package, site / "assets" / name, dirs_exist_ok=True)
    (site / "assets" / name / "setup.js").write_text(setup, encoding="utf-8")
    return site


def interleaved(sites: dict[str, Path], pages: list[str], rounds: int, measure) -> dict:
    """{name: {page: [measure(name, server, page) per round]}}, interleaved so that background load hits all alike."""
    runs = {name: {page: [] for page in pages if (site / page / "index.html").exists()} for name, site in sites.items()}
    prefix = bs.site_prefix()
    with contextlib.ExitStack() as stack:
        servers = {name: stack.enter_context(bs.SiteServer(site, prefix, gzip=True)) for name, site in sites.items()}
        for round_number in range(1, rounds + 1):
            for page, name in ((page, name) for page in pages for name in sites if page in runs[name]):
                runs[name][page].append(measure(name, servers[name], page))
            say(f"round {round_number}/{rounds} over {len(pages)} page(s) done")
    return runs


def per_page(results: dict, summary) -> dict:  # {name: {page: summary(its list)}} of interleaved()'s results
    return {name: {page: summary(runs) for page, runs in pages.items()} for name, pages in results.items()}


def cold_loads(sites: dict[str, Path], pages: list[str], rounds: int) -> dict:
    """interleaved() cold loads: math-ready, layout shift, bytes until idle after a scroll (older themes wait for it)."""

    def idle_bytes(page, server: bs.SiteServer) -> int:  # until 0.5 s without any: network idle, as Playwright has it
        total, quiet_since = 0, time.monotonic()
        while time.monotonic() - quiet_since < 0.5:
            page.wait_for_timeout(50)
            if sent := server.take_bytes_sent():
                total, quiet_since = total + sent, time.monotonic()
        return total

    def load(name: str, server: bs.SiteServer, path: str) -> dict:
        with browser.new_context(viewport=bs.PHONE, device_scale_factor=2) as context:
            context.add_init_script(MEASURE_JS)
            page = context.new_page()
            server.take_bytes_sent()
            page.goto(server.base + path, wait_until="load")
            page.wait_for_function("() => window.__bench.ready !== null", timeout=60000, polling=50)
            sent = idle_bytes(page, server)
            measured = page.evaluate("() => window.__bench")
            page.mouse.wheel(0, 1)
            return {**measured, "bytes": sent + idle_bytes(page, server)}

    with sync_playwright() as playwright:  # stopping Playwright closes its browser
        browser = playwright.chromium.launch(executable_path=bs.chromium_path(), headless=True, args=bs.CHROMIUM_ARGS)
        return interleaved(sites, pages, rounds, load)


def lighthouse(name: str, server: bs.SiteServer, page: str) -> dict:
    """One Lighthouse run, mobile, all four categories (its defaults); retried while a loaded machine gives no score."""
    report = BUILD / "lighthouse" / f"{name}.{page.strip('/').replace('/', '_')}.json"
    command = ["node", LIGHTHOUSE, server.base + page, "--quiet", "--output=json", f"--output-path={report}"]
    command += [f"--chrome-path={bs.chromium_path()}", f"--chrome-flags={' '.join(bs.CHROMIUM_ARGS)}"]
    for _ in range(3):
        timed(command)
        data = json.loads(report.read_text(encoding="utf-8"))
        if all(category["score"] is not None for category in data["categories"].values()):
            break
    run = {key: round((category["score"] or 0) * 100) for key, category in data["categories"].items()}
    run["cls"] = data["audits"]["cumulative-layout-shift"]["numericValue"]
    run["host"] = data["environment"]["benchmarkIndex"]  # how fast Lighthouse found this machine
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--loads", type=int, default=7, help="cold loads per page and variant, math-ready (default 7)")
    parser.add_argument("--lighthouse-runs", type=int, default=1, help="Lighthouse runs per page; the median counts")
    parser.add_argument("--repeat", type=int, help="timings of each build and doc-test run (default 3 and 5)")
    parser.add_argument("--pages", default="", help="comma-separated chapter paths, not all (math: their 3 heaviest)")
    parser.add_argument("--baseline", type=Path, help="an earlier commit's built site, measured beside the fresh one")
    parser.add_argument("--skip", default="", help="parts to skip: math,weight,lighthouse,build,doctest")
    args = parser.parse_args()
    skip, baseline = set(args.skip.split(",")), {"baseline": args.baseline} if args.baseline else {}
    if args.baseline and not (args.baseline / "index.html").is_file():
        raise SystemExit(f"--baseline {args.baseline}: no built site there")
    if "lighthouse" not in skip and not LIGHTHOUSE.exists():
        raise SystemExit("Lighthouse is missing: run `npm ci` in benchmarks/")
    (BUILD / "lighthouse").mkdir(parents=True, exist_ok=True)
    chromium = subprocess.run([bs.chromium_path(), "--version"], capture_output=True, text=True).stdout.strip()
    report: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "budget": []}
    report["machine"] = f"{os.cpu_count()} cores, {chromium}, load {os.getloadavg()[0]:.1f} at start"
    report["baseline"] = args.baseline and str(args.baseline)
    print(f"Performance budget, {report['date']}, {report['machine']}\n", flush=True)

    def judge(what: str, measured: str, target: str, met: bool) -> None:  # a line of the budget, printed and kept
        print(f"{'met   ' if met else 'MISSED'}  {what}:\n        {measured} (target {target})", flush=True)
        report["budget"].append((what, measured, target, met))
        (BUILD / "report.json").write_text(json.dumps(report, indent=1), encoding="utf-8")

    def compare(key: str, what: str, first, second, repeat: int, target: float) -> None:  # interleaved, as above
        say(f"{what}: {repeat} rounds")
        seconds = report[key] = [(first(), second()) for _ in range(repeat)]
        a, b = median(pair[0] for pair in seconds), median(pair[1] for pair in seconds)
        judge(f"{what} (median of {repeat})", f"{a:.1f} / {b:.1f} s = {a / b:.2f}x", f"<= {target:g}x", a / b <= target)

    sites = {"shipped": SHIPPED, **baseline}
    if not skip >= {"math", "weight", "lighthouse", "build"}:  # first, so that the builds timed below find warm caches
        build(SHIPPED)
        built = {page for page in bs.site_pages(SHIPPED) if page.startswith("part-")}
        chapters = [page.strip("/ ") + "/" for page in args.pages.split(",") if page.strip("/ ")] or sorted(built)
        if missing := set(chapters) - built:
            raise SystemExit(f"--pages: not chapter pages of the build: {', '.join(sorted(missing))}")

    if "math" not in skip:  # shipped (KaTeX HTML made at build time) against the client-side setups, and the baseline
        variants = {name: build_variant(name) for name in VARIANTS}
        formulas = {
            page: (SHIPPED / page / "index.html").read_bytes().count(b'class="arithmatex"') for page in chapters
        }
        heavy = sorted(chapters, key=lambda page: (-formulas[page], page))[:3]
        loads = cold_loads({**sites, **variants}, heavy, args.loads + 1)
        math = report["math"] = per_page(loads, lambda loads: loads[1:])  # round 1 warms the browser up
        ms = per_page(math, lambda loads: median(load["ready"] for load in loads))
        shift = per_page(math, lambda loads: max(load["cls"] for load in loads))
        for name in sites:
            for other, target in (("katex-client", 0.6), ("mathjax3", 0.35)):
                ratios = {page: ms[name][page] / ms[other][page] for page in ms[name]}
                measured = "; ".join(
                    f"{page} ({formulas[page]} formulas) {ms[name][page]:.0f} / {ms[other][page]:.0f} ms = {ratio:.2f}x"
                    for page, ratio in ratios.items()
                )
                what = f"math-ready, {name} / {other} (median of {args.loads} cold loads, 375 px, gzip)"
                judge(what, measured, f"<= {target}x", max(ratios.values()) <= target)
            measured = "; ".join(f"{page} {value:.3f}" for page, value in shift[name].items())
            judge(f"layout shift of those loads, {name}", measured, "<= 0.01", max(shift[name].values()) <= 0.01)

    if "weight" not in skip:  # one cold load of each chapter page
        report["weight"] = per_page(cold_loads(sites, chapters, 1), lambda loads: loads[0]["bytes"] / 1000)  # KB
        for name, kb in report["weight"].items():
            heaviest = max(kb, key=kb.get)
            what = f"page weight, {name} ({len(kb)} chapter pages, gzip, with the theme's script and the search index)"
            measured = f"median {median(kb.values()):.0f} KB, heaviest {kb[heaviest]:.0f} KB ({heaviest})"
            judge(what, measured, "<= 300 KB each", kb[heaviest] <= 300)

    if "lighthouse" not in skip:  # per page the median run by performance; the other scores from every run
        runs = report["lighthouse"] = interleaved(sites, chapters, args.lighthouse_runs, lighthouse)
        performance = per_page(runs, lambda page_runs: median_low(run["performance"] for run in page_runs))
        for name, scores in performance.items():
            every = [run for page_runs in runs[name].values() for run in page_runs]
            lowest = min(scores, key=scores.get)
            measured = f"median {median(scores.values()):g}, lowest {scores[lowest]} ({lowest}); " + ", ".join(
                f"lowest {key} {min(run[key] for run in every)}" for key in ("accessibility", "best-practices", "seo")
            )
            measured += f", highest CLS {max(run['cls'] for run in every):.3f}; host benchmarkIndex median "
            measured += f"{median(run['host'] for run in every):.0f}"
            what = f"Lighthouse mobile performance, {name} ({len(scores)} chapter pages, median of {args.lighthouse_runs} run(s))"
            judge(what, measured, ">= 90", median(scores.values()) >= 90)

    if "build" not in skip:  # against MkDocs as it comes (theme mkdocs, no plugins or hooks), same Markdown extensions
        bare = dict(site_name="bare", theme="mkdocs", plugins=[], markdown_extensions=CONFIG["markdown_extensions"])
        what = "build time, mkdocs build --strict / bare MkDocs"
        compare("build", what, lambda: build(SHIPPED), lambda: build(BUILD / "site-bare", bare), args.repeat or 3, 3)

    if "doctest" not in skip:  # the floor: the blocks, read and snippet-expanded as the doc-test harness does
        expander, blocks = SnippetExpander(ROOT / "mkdocs.yml"), []
        for page in sorted((ROOT / "docs").rglob("*.md")):
            for example in pair_examples(page.read_text(encoding="utf-8"))[0]:
                code = "\n".join(expander.expand(example.code.body))
                blocks.append({"name": f"{page.relative_to(ROOT)} block {example.number}", "code": code})
        (BUILD / "blocks.json").write_text(json.dumps(blocks), encoding="utf-8")
        pytest = [sys.executable, "-m", "pytest", "docs", "-q", "-p", "no:cacheprovider"]
        plain = [sys.executable, "-c", PLAIN_RUNNER, BUILD / "blocks.json"]
        what = f"doc-test time, pytest docs / its {len(blocks)} blocks in one plain Python"
        # pytest's status 1 (a block failed) is a result, as the floor's failures are
        compare("doctest", what, lambda: timed(pytest, ok=(0, 1)), lambda: timed(plain), args.repeat or 5, 1.3)


if __name__ == "__main__":
    main()
