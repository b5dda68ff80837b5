#!/usr/bin/env python3
"""What the reader's browser pays for this guide, measured and printed side by side.

    cd benchmarks && npm ci && cd ..          # MathJax 3 and Lighthouse 12.2.3 (benchmark-only)
    .venv/bin/python benchmarks/bench_reader.py [--loads 7] [--skip lighthouse,build,doctest]

1. Math-ready time, bytes and layout shift: the three most formula-heavy pages (counted in the build),
   each loaded cold (fresh browser context, empty cache) --loads times in Debian's chromium, served
   from 127.0.0.1 with gzip as GitHub Pages serves. Three builds of the same Markdown:
   * shipped: formulas rendered to KaTeX HTML at build time (hooks/katex_render.py);
   * client-side KaTeX: mkdocs-material's documented KaTeX setup (katex.min.js, auto-render and the
     theme's katex.js snippet), with KaTeX from npm served by the site itself;
   * MathJax 3: mkdocs-material's documented MathJax setup, with mathjax@3 (tex-mml-chtml) from npm.
   The variants are built from a config that INHERITs mkdocs.yml, drops hooks/katex_render.py and adds
   the scripts. Math-ready = the article is parsed (the footer after it exists), every .arithmatex holds
   KaTeX HTML or a MathJax container and has been laid out (also in a chunk the browser would lay out
   only near the screen), and document.fonts.ready has resolved after that, in ms from the start of
   navigation. Medians are printed.
2. Lighthouse 12.2.3, mobile (its default), on every chapter page, gzip server, Debian's chromium;
   --lighthouse-runs runs per page (default 3), the median run reported.
3. Page weight: bytes sent by the server for a cold first load of every chapter page, and then for the
   reader's first input, which fetches the theme's script and the search index (overrides/main.html).
4. Build time: `mkdocs build --strict` against a bare MkDocs build (theme mkdocs, no plugins, no hooks,
   the same Markdown extensions; also printed: without them) of the same docs/, both in the
   environment dev.py builds in (dev.BUILD_ENV); doc-test time:
   `pytest docs` against executing the same blocks, expanded the same way, in one plain Python process.

Nothing here is a test: it prints a report (and writes benchmarks/build/report.json).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "benchmarks"
BUILD = HERE / "build"  # ignored by git (.gitignore: build/)
sys.path.insert(0, str(ROOT))

from dev import BUILD_ENV  # noqa: E402
from tests import browser_support as bs  # noqa: E402

KATEX_DIST = ROOT / "node_modules" / "katex" / "dist"
MATHJAX_ES5 = HERE / "node_modules" / "mathjax" / "es5"
LIGHTHOUSE = HERE / "node_modules" / "lighthouse" / "cli" / "index.js"
MKDOCS = [sys.executable, "-m", "mkdocs"]
ENV = {**os.environ, **BUILD_ENV}  # the environment dev.py builds in, for every build timed here

# mkdocs-material's documented setups ("Math" page of its reference), with local copies of the scripts.
KATEX_JS = """document$.subscribe(({ body }) => {
  renderMathInElement(body, {
    delimiters: [
      { left: "$$",  right: "$$",  display: true },
      { left: "$",   right: "$",   display: false },
      { left: "\\\\(", right: "\\\\)", display: false },
      { left: "\\\\[", right: "\\\\]", display: true }
    ],
  })
})
"""
MATHJAX_JS = """window.MathJax = {
  tex: {
    inlineMath: [["\\\\(", "\\\\)"]],
    displayMath: [["\\\\[", "\\\\]"]],
    processEscapes: true,
    processEnvironments: true
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex"
  }
};

document$.subscribe(() => {
  MathJax.startup.output.clearCache()
  MathJax.typesetClear()
  MathJax.texReset()
  MathJax.typesetPromise()
})
"""

# Installed before any page script: records when the last formula is laid out, then when the fonts
# are ready after that, and the layout shifts.
MEASURE_JS = r"""
(() => {
  const m = window.__bench = {complete: null, ready: null, cls: 0};
  new PerformanceObserver(list => { for (const e of list.getEntries()) if (!e.hadRecentInput) m.cls += e.value; })
    .observe({type: "layout-shift", buffered: true});
  const check = () => {
    // The content is fully parsed once the theme's footer exists (it follows the article); the page's
    // scripts may still be loading: a formula that is already laid out counts from that moment.
    if (m.complete !== null || !document.querySelector("footer.md-footer, body > footer")) return;
    const formulas = document.querySelectorAll(".arithmatex");
    for (const f of formulas) if (!f.querySelector(".katex, mjx-container")) return;
    m.complete = performance.now();
    // Lay every formula out now (also those in chunks the browser would leave for later,
    // hooks/first_paint.py), so that all their fonts are requested now.
    for (const f of formulas) f.getBoundingClientRect();
    document.fonts.ready.then(() => { m.ready = performance.now(); });
  };
  new MutationObserver(check).observe(document, {childList: true, subtree: true});
  document.addEventListener("DOMContentLoaded", check);
  document.addEventListener("readystatechange", check);
})();
"""


def say(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


# --- builds -------------------------------------------------------------------------------------


def main_hooks() -> list[str]:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    block = re.search(r"^hooks:\n((?:[ \t]+-[^\n]*\n)+)", text, re.M)
    return [line.strip()[1:].strip() for line in block.group(1).splitlines()] if block else []


def variant_config(name: str) -> Path:
    """A config that INHERITs mkdocs.yml, without the build-time KaTeX hook, with client-side math."""
    folder = BUILD / f"config-{name}"
    folder.mkdir(parents=True, exist_ok=True)
    hooks = [hook for hook in main_hooks() if "katex_render" not in hook]
    hooks.append(str(folder / "copy_math_assets.py"))
    if name == "katex-client":
        scripts = ["assets/bench/katex.js", "assets/katex-client/katex.min.js", "assets/katex-client/contrib/auto-render.min.js"]
        css = ["assets/katex-client/katex.min.css"]
        source, target, snippet = KATEX_DIST, "assets/katex-client", KATEX_JS
    else:
        scripts = ["assets/bench/mathjax.js", "assets/mathjax/tex-mml-chtml.js"]
        css = []
        source, target, snippet = MATHJAX_ES5, "assets/mathjax", MATHJAX_JS
    (folder / "copy_math_assets.py").write_text(
        "import shutil\nfrom pathlib import Path\n\n"
        "def on_post_build(config):\n"
        f"    site = Path(config.site_dir)\n"
        f"    shutil.copytree({str(source)!r}, site / {target!r}, dirs_exist_ok=True)\n"
        f"    (site / 'assets' / 'bench').mkdir(parents=True, exist_ok=True)\n"
        f"    (site / 'assets' / 'bench' / {Path(scripts[0]).name!r}).write_text({snippet!r})\n",
        encoding="utf-8",
    )
    extra_css = [line.strip()[1:].strip() for line in re.search(r"^extra_css:\n((?:[ \t]+-[^\n]*\n)+)",
                 (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M).group(1).splitlines()]
    # Beside mkdocs.yml, so that every relative path of the inherited config (custom_dir, watch, the
    # mkdocstrings paths) means what it means there; build() deletes it after the build.
    config = ROOT / f".bench-mkdocs-{name}.yml"
    config.write_text(
        "INHERIT: mkdocs.yml\n"
        "strict: false\n"
        f"hooks: {json.dumps(hooks)}\n"
        f"extra_css: {json.dumps(css + extra_css)}\n"
        f"extra_javascript: {json.dumps(scripts)}\n",
        encoding="utf-8",
    )
    return config


def bare_config(extensions: bool = True) -> Path:
    """MkDocs as it comes (theme mkdocs, no plugins, no hooks) over the same docs/.

    With ``extensions``, the Markdown extensions of mkdocs.yml, copied verbatim, so that the bare build
    reads the same Markdown as the real one (snippets expanded, fences, tabs and formulas parsed);
    without, plain Markdown, where ``--8<--`` lines and nested fences stay text.
    """
    folder = BUILD / ("config-bare" if extensions else "config-bare-markdown")
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "mkdocs.yml"
    text = f"site_name: bare\ndocs_dir: {ROOT / 'docs'}\ntheme:\n  name: mkdocs\nplugins: []\n"
    if extensions:
        text += re.search(r"^markdown_extensions:\n(?:[ \t]+[^\n]*\n)+", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M).group(0)
    config.write_text(text, encoding="utf-8")
    return config


def build(config: Path | None, site: Path, strict: bool) -> float:
    command = [*MKDOCS, "build", "--site-dir", str(site)]
    if config is not None:
        command += ["--config-file", str(config)]
    command.append("--strict" if strict else "--no-strict")
    start = time.perf_counter()
    try:
        result = subprocess.run(command, cwd=ROOT, env=ENV, capture_output=True, text=True)
    finally:
        if config is not None and config.name.startswith(".bench-"):
            config.unlink(missing_ok=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"build failed ({' '.join(command)}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return elapsed


# --- cold loads ---------------------------------------------------------------------------------


def cold_load(browser, server: bs.SiteServer, path: str, wake: bool = False) -> dict:
    """One cold load; with ``wake``, then the reader's first input (a scroll), which starts the theme's
    script (overrides/main.html), and the bytes that costs until search is ready (``bytes_after_input``)."""
    context = browser.new_context(viewport=bs.PHONE, device_scale_factor=2)
    try:
        context.add_init_script(MEASURE_JS)
        page = context.new_page()
        server.take_bytes_sent()
        page.goto(server.base + path, wait_until="load")
        page.wait_for_function("() => window.__bench.ready !== null", timeout=60000, polling=50)
        page.wait_for_load_state("networkidle")
        result = page.evaluate("() => ({ready: __bench.ready, complete: __bench.complete, cls: __bench.cls})")
        result["bytes"] = server.take_bytes_sent()
        if wake:
            shipped = page.evaluate(bs.SEARCH_META_JS)
            page.mouse.wheel(0, 1)
            page.wait_for_function(bs.THEME_STARTED_JS, timeout=30000)
            if shipped is not None:
                page.wait_for_function(f"(shipped) => ({bs.SEARCH_META_JS})() !== shipped", arg=shipped, timeout=30000)
            page.wait_for_load_state("networkidle")
            result["bytes_after_input"] = server.take_bytes_sent()
        return result
    finally:
        context.close()


def formula_counts(site: Path) -> dict[str, int]:
    counts = {}
    for page in bs.site_pages(site):
        html = (site / (page + "index.html" if page == "" or page.endswith("/") else page)).read_text(encoding="utf-8")
        counts[page] = html.count('class="arithmatex"')
    return counts


def chapter_pages(site: Path) -> list[str]:
    return [page for page in bs.site_pages(site) if re.match(r"part-\d+/", page)]


def measure_math(sites: dict[str, Path], pages: list[str], loads: int) -> dict:
    from playwright.sync_api import sync_playwright

    results: dict = {name: {page: [] for page in pages} for name in sites}
    prefix = bs.site_prefix()
    servers = {name: bs.SiteServer(site, prefix, gzip=True) for name, site in sites.items()}
    for server in servers.values():
        server.__enter__()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=bs.chromium_path(), headless=True, args=bs.CHROMIUM_ARGS)
            try:
                for name, server in servers.items():  # warm-up load each: the first load of a browser pays for its start
                    cold_load(browser, server, pages[0])
                for round_number in range(loads):  # interleaved, so that background load hits every variant alike
                    for page in pages:
                        for name, server in servers.items():
                            results[name][page].append(cold_load(browser, server, page))
                    say(f"math-ready: round {round_number + 1}/{loads} done")
            finally:
                browser.close()
    finally:
        for server in servers.values():
            server.__exit__(None, None, None)
    return results


def page_weights(site: Path, pages: list[str]) -> dict[str, dict[str, int]]:
    """Bytes of a cold first load of each page, and then of the reader's first input."""
    from playwright.sync_api import sync_playwright

    weights = {}
    with bs.SiteServer(site, bs.site_prefix(), gzip=True) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=bs.chromium_path(), headless=True, args=bs.CHROMIUM_ARGS)
        try:
            for page in pages:
                load = cold_load(browser, server, page, wake=True)
                weights[page] = {"load": load["bytes"], "after_input": load["bytes_after_input"]}
        finally:
            browser.close()
    return weights


# --- Lighthouse ---------------------------------------------------------------------------------


def lighthouse(site: Path, pages: list[str], runs: int = 3, cpu_slowdown: float = 4) -> dict[str, dict]:
    """Lighthouse ``runs`` times on every page (rounds over all pages, so a burst of background load
    hits one run of many pages rather than every run of one), and per page the run with the median
    performance score, as Lighthouse's own docs advise for variable machines; ``performance_runs``
    keeps every run's score.

    Lighthouse simulates a phone by multiplying the CPU time it observes by ``cpu_slowdown`` (its
    default 4 assumes a high-end desktop host, benchmarkIndex 1500-2000, docs/throttling.md of
    Lighthouse). Every run's ``benchmark_index`` is kept, so a report says what host it came from."""
    if not LIGHTHOUSE.exists():
        raise SystemExit("Lighthouse is missing: run `npm ci` in benchmarks/")
    out = BUILD / "lighthouse"
    out.mkdir(parents=True, exist_ok=True)
    flags = " ".join(bs.CHROMIUM_ARGS)
    all_runs: dict[str, list[dict]] = {page: [] for page in pages}
    with bs.SiteServer(site, bs.site_prefix(), gzip=True) as server:
        for run in range(runs):
            for page in pages:
                report = out / (page.strip("/").replace("/", "_") + f".run{run + 1}.json")
                command = ["node", str(LIGHTHOUSE), server.base + page, f"--chrome-path={bs.chromium_path()}",
                           f"--chrome-flags={flags}", "--output=json", f"--output-path={report}", "--quiet",
                           "--only-categories=performance,accessibility,best-practices,seo",
                           f"--throttling.cpuSlowdownMultiplier={cpu_slowdown:g}"]
                for attempt in range(3):  # a loaded machine sometimes gives NO_FCP; Lighthouse's advice is to retry
                    subprocess.run(command, check=True, cwd=HERE, capture_output=True, text=True)
                    data = json.loads(report.read_text(encoding="utf-8"))
                    if all(value["score"] is not None for value in data["categories"].values()):
                        break
                scores = {key: None if value["score"] is None else round(value["score"] * 100) for key, value in data["categories"].items()}
                scores["cls"] = data["audits"]["cumulative-layout-shift"]["numericValue"]
                scores["lcp_ms"] = data["audits"]["largest-contentful-paint"]["numericValue"]
                scores["tbt_ms"] = data["audits"]["total-blocking-time"]["numericValue"]
                scores["fcp_ms"] = data["audits"]["first-contentful-paint"]["numericValue"]
                scores["benchmark_index"] = data["environment"]["benchmarkIndex"]
                scores["slow_host_warning"] = any("slower CPU than" in warning for warning in data["runWarnings"])
                scores["failing"] = sorted(
                    audit_id for category in data["categories"].values() if (category["score"] or 0) < 1
                    for ref in category["auditRefs"] if ref["weight"] > 0
                    for audit_id in [ref["id"]] if (data["audits"][audit_id]["score"] is not None and data["audits"][audit_id]["score"] < 0.9))
                all_runs[page].append(scores)
                say(f"lighthouse run {run + 1}/{runs} {page}: {scores}")
    results = {}
    for page, page_runs in all_runs.items():
        ordered = sorted(page_runs, key=lambda scores: scores["performance"] or 0)
        results[page] = {**ordered[(len(ordered) - 1) // 2], "performance_runs": [scores["performance"] for scores in page_runs],
                         "worst_accessibility": min(scores["accessibility"] or 0 for scores in page_runs),
                         "worst_cls": max(scores["cls"] for scores in page_runs),
                         "benchmark_indices": [scores["benchmark_index"] for scores in page_runs],
                         "slow_host_warnings": sum(scores["slow_host_warning"] for scores in page_runs)}
    return results


# --- build and doc-test times -------------------------------------------------------------------


def time_doctests() -> tuple[float, float, int]:
    def pytest_docs() -> float:
        start = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "pytest", "docs", "-q", "-p", "no:cacheprovider"], cwd=ROOT, env=ENV,
                                capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if result.returncode not in (0, 1):
            raise SystemExit(f"pytest docs could not run:\n{result.stdout[-2000:]}")
        return elapsed

    plain = HERE / "plain_blocks.py"

    def plain_python() -> float:
        start = time.perf_counter()
        result = subprocess.run([sys.executable, str(plain)], cwd=ROOT, env=ENV, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if result.returncode != 0:
            raise SystemExit(f"plain run failed:\n{result.stderr[-2000:]}")
        return elapsed

    count = int(subprocess.run([sys.executable, str(plain), "--count"], cwd=ROOT, env=ENV, capture_output=True, text=True).stdout or 0)
    # Interleaved, so that a change in the machine's background load hits both alike.
    tested, plain_times = [], []
    for _ in range(5):
        tested.append(pytest_docs())
        plain_times.append(plain_python())
    return statistics.median(tested), statistics.median(plain_times), count


# --- the report ---------------------------------------------------------------------------------


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    chromium = subprocess.run([bs.chromium_path(), "--version"], capture_output=True, text=True).stdout.strip()
    return f"{os.cpu_count()} cores (nproc), {cpu}, {platform.system()} {platform.release()}, {chromium}, 1-min load average {load:.1f} at start"


def median(values):
    return statistics.median(values) if values else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--loads", type=int, default=7, help="cold loads per page and variant (default 7)")
    parser.add_argument("--lighthouse-runs", type=int, default=3, help="Lighthouse runs per page; the median run is reported (default 3)")
    parser.add_argument("--cpu-slowdown", type=float, default=4,
                        help="Lighthouse's CPU slowdown multiplier (default 4, Lighthouse's own; its docs/throttling.md "
                             "gives lower ones for hosts slower than a high-end desktop)")
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: math,lighthouse,weight,build,doctest")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    report: dict = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "machine": machine()}
    BUILD.mkdir(exist_ok=True)
    lines = [f"Reader benchmarks, {report['date']}", f"machine: {report['machine']}", ""]
    printed = 0

    def flush() -> None:  # print each section as soon as it is measured, and keep the raw figures
        nonlocal printed
        print("\n".join(lines[printed:]), flush=True)
        printed = len(lines)
        (BUILD / "report.json").write_text(json.dumps(report, indent=1), encoding="utf-8")

    flush()

    say("building the shipped site and the two client-side variants")
    sites = {"shipped": BUILD / "site-shipped", "katex-client": BUILD / "site-katex-client", "mathjax3": BUILD / "site-mathjax3"}
    build_times = {"shipped": build(None, sites["shipped"], strict=True)}
    if "math" not in skip:
        for name in ("katex-client", "mathjax3"):
            build(variant_config(name), sites[name], strict=False)

    counts = formula_counts(sites["shipped"])
    heavy = sorted(counts, key=lambda page: (-counts[page], page))[:3]
    chapters = chapter_pages(sites["shipped"])

    if "math" not in skip:
        say(f"math-ready: {args.loads} cold loads of {heavy} in each variant")
        math = measure_math(sites, heavy, args.loads)
        report["math"] = math
        lines += [f"## Math-ready time, bytes, layout shift (median of {args.loads} cold loads, 375 px, gzip)", ""]
        lines.append(f"{'page (formulas)':42} {'variant':13} {'math-ready ms':>13} {'KiB sent':>9} {'CLS':>7}")
        ratios = {"katex-client": [], "mathjax3": []}
        for page in heavy:
            shipped_ready = median([load["ready"] for load in math["shipped"][page]])
            for name in sites:
                loads = math[name][page]
                ready = median([load["ready"] for load in loads])
                sent = median([load["bytes"] for load in loads]) / 1024
                cls = median([load["cls"] for load in loads])
                label = f"{page or '/'} ({counts[page]})" if name == "shipped" else ""
                lines.append(f"{label:42} {name:13} {ready:13.0f} {sent:9.0f} {cls:7.3f}")
                if name != "shipped":
                    ratios[name].append(shipped_ready / ready)
        lines.append("")
        for name, target in (("katex-client", 0.6), ("mathjax3", 0.35)):
            worst = max(ratios[name])
            lines.append(f"shipped / {name} math-ready: {', '.join(f'{r:.2f}x' for r in ratios[name])} "
                         f"(target <= {target}x: {'met' if worst <= target else 'MISSED'})")
        report["math_ratios"] = ratios
        lines.append("")
        flush()

    if "weight" not in skip:
        say(f"page weight of {len(chapters)} chapter pages")
        weights = page_weights(sites["shipped"], chapters)
        report["weights"] = weights
        # Judged with the reader's first input included: the theme's script and the search index
        # are part of reading the page, only fetched later.
        totals = {page: size["load"] + size["after_input"] for page, size in weights.items()}
        heaviest = max(totals, key=totals.get) if totals else None
        over = [page for page, size in totals.items() if size > 300 * 1024]
        lines += ["## Page weight (cold first load, then the reader's first input; gzip, bytes sent by the server)", ""]
        if heaviest:
            lines.append(f"{len(weights)} chapter pages: on load median {median([w['load'] for w in weights.values()]) / 1024:.0f} KiB, "
                         f"heaviest {max(w['load'] for w in weights.values()) / 1024:.0f} KiB; with the first input (theme script, "
                         f"search index) median {median(list(totals.values())) / 1024:.0f} KiB, heaviest {heaviest} "
                         f"{totals[heaviest] / 1024:.0f} KiB (target <= 300 KB each: {'met' if not over else 'MISSED on ' + ', '.join(over)})")
        lines.append("")
        flush()

    if "build" not in skip:
        say("build times (3 each, median)")
        times: dict[str, list[float]] = {"shipped": [], "bare": [], "plain": []}
        for _ in range(3):  # interleaved, so that a change in background load hits all three alike
            times["shipped"].append(build(None, BUILD / "site-shipped", strict=True))
            times["bare"].append(build(bare_config(), BUILD / "site-bare", strict=False))
            times["plain"].append(build(bare_config(extensions=False), BUILD / "site-bare-markdown", strict=False))
        shipped, bare, plain = (statistics.median(times[key]) for key in ("shipped", "bare", "plain"))
        report["build"] = {"shipped": shipped, "bare": bare, "bare_plain_markdown": plain}
        lines += ["## Build time (median of 3, interleaved, warm caches)", "",
                  f"mkdocs build --strict: {shipped:.1f} s; bare MkDocs (theme mkdocs, no plugins or hooks, the same "
                  f"Markdown extensions): {bare:.1f} s; ratio {shipped / bare:.1f}x (target <= 3x: "
                  f"{'met' if shipped / bare <= 3 else 'MISSED'})",
                  f"for comparison, bare MkDocs without the Markdown extensions (plain Markdown): {plain:.1f} s, "
                  f"ratio {shipped / plain:.1f}x", ""]
        flush()

    if "doctest" not in skip:
        say("doc-test times (5 each, interleaved, median)")
        tested, plain, blocks = time_doctests()
        report["doctest"] = {"pytest_docs": tested, "plain": plain, "blocks": blocks}
        lines += ["## Doc-test time (median of 5, interleaved)", "",
                  f"pytest docs: {tested:.1f} s; the same {blocks} blocks in one plain Python process: {plain:.1f} s; "
                  f"ratio {tested / plain:.2f}x (target <= 1.3x: {'met' if tested / plain <= 1.3 else 'MISSED'})", ""]
        flush()

    if "lighthouse" not in skip:
        runs = args.lighthouse_runs
        say(f"Lighthouse on {len(chapters)} chapter pages, {runs} run(s) each")
        scores = lighthouse(sites["shipped"], chapters, runs, args.cpu_slowdown)
        report["lighthouse"] = scores
        report["lighthouse_cpu_slowdown"] = args.cpu_slowdown
        lines += [f"## Lighthouse 12.2.3, mobile, every chapter page (the median of {runs} runs by performance; "
                  f"CPU slowdown {args.cpu_slowdown:g}x{'' if args.cpu_slowdown == 4 else ', not Lighthouse default 4x'})", ""]
        lines.append(f"{'page':40} {'perf':>4} {'runs':>12} {'a11y':>4} {'bp':>4} {'seo':>4} {'CLS':>6} {'TBT ms':>6} {'LCP ms':>6}  failing audits")
        for page, s in scores.items():
            lines.append(f"{page:40} {s['performance']!s:>4} {'/'.join(map(str, s['performance_runs'])):>12} {s['accessibility']!s:>4} "
                         f"{s['best-practices']!s:>4} {s['seo']!s:>4} {s['cls']:6.3f} {s['tbt_ms']:6.0f} {s['lcp_ms']:6.0f}  {', '.join(s['failing'])}")
        worst = {key: min((s[key] for s in scores.values() if s[key] is not None), default=None)
                 for key in ("performance", "accessibility", "best-practices", "seo")}
        worst_cls = max(s["worst_cls"] for s in scores.values())
        worst_a11y_any_run = min(s["worst_accessibility"] for s in scores.values())
        performances = [s["performance"] for s in scores.values() if s["performance"] is not None]
        indices = [run_index for s in scores.values() for run_index in s["benchmark_indices"]]
        warned = sum(s["slow_host_warnings"] for s in scores.values())
        lines.append(f"host: Lighthouse benchmarkIndex median {median(indices):.0f}, range {min(indices):.0f}-{max(indices):.0f} "
                     f"(its 4x slowdown assumes 1500-2000); Lighthouse warned of a slower CPU than it expects in {warned} of "
                     f"{len(indices)} runs")
        lines.append(f"performance: median {median(performances):.0f}, {sum(p >= 98 for p in performances)} of {len(performances)} "
                     f"pages >= 98")
        lines.append(f"lowest: performance {worst['performance']} (target >= 98), accessibility {worst['accessibility']} (100; "
                     f"lowest in any run {worst_a11y_any_run}), best practices {worst['best-practices']} (100), SEO {worst['seo']} (100); "
                     f"highest CLS in any run {worst_cls:.3f} (<= 0.01)")
        lines.append("")
        flush()

    return 0


if __name__ == "__main__":
    raise SystemExit(main())
