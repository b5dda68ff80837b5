"""The checks of what a reader saw (tests/site/reader.py's ``PageVisit``): each returns a list of problems, each
naming the page, the mode and what was wrong; an empty list when all is well."""

from __future__ import annotations

from tests.site.reader import PageVisit
from tools.docblocks import normalize  # the doc-test harness's own comparison


def _where(visit: PageVisit) -> str:
    return f"page {visit.page!r} ({visit.mode.name})"


def check_console(visit: PageVisit) -> list[str]:
    problems = [f"{_where(visit)}: {line}" for line in visit.console]
    if visit.status is not None and visit.status >= 400 and not visit.page.startswith("404"):
        problems.append(f"{_where(visit)}: the page answered HTTP {visit.status}")
    return problems


def check_requests(visit: PageVisit, origin: str) -> list[str]:
    return [
        f"{_where(visit)}: requested {url}, which is not on the site's own server"
        for url in visit.requests
        if not (url.startswith(origin + "/") or url.startswith(("data:", "blob:")))
    ]


def check_formulas(visit: PageVisit) -> list[str]:
    content = visit.content
    problems = [f"{_where(visit)}: raw TeX is visible: «{snippet}»" for snippet in content["rawTex"]]
    problems += [f"{_where(visit)}: formula not rendered by KaTeX: «{tex}»" for tex in content["unrendered"]]
    problems += [f"{_where(visit)}: KaTeX error: «{error}»" for error in content["errors"]]
    return problems


def check_no_sideways_scroll(visit: PageVisit) -> list[str]:
    overflow = visit.overflow
    if overflow["scrollWidth"] <= overflow["width"] + 1:
        return []
    culprits = "; ".join(overflow["culprits"]) or "no single element found"
    return [
        f"{_where(visit)}: the page scrolls sideways at {overflow['width']} px "
        f"(content is {overflow['scrollWidth']} px wide): {culprits}"
    ]


def check_figures(visit: PageVisit) -> list[str]:
    """The figure variant of the reader's scheme shows (and loads), the other one is hidden."""
    scheme = visit.mode.scheme
    problems = []
    for image in visit.content["figures"]:
        should_show = image["variant"] == scheme
        if image["visible"] != should_show:
            problems.append(
                f"{_where(visit)}: figure {image['src']} is {'shown' if image['visible'] else 'hidden'} in {scheme} mode"
            )
        if should_show and not image["loaded"]:
            problems.append(f"{_where(visit)}: figure {image['src']} did not load")
        if not image["alt"].strip():
            problems.append(f"{_where(visit)}: figure {image['src']} has no alt text")
    return problems


def check_scheme(visit: PageVisit) -> list[str]:
    """The theme follows the reader's preferred colour scheme."""
    scheme = visit.mode.scheme
    wanted = {"light": "default", "dark": "slate"}[scheme]
    got = visit.content["scheme"]
    return (
        []
        if got == wanted
        else [
            f"{_where(visit)}: the theme shows colour scheme {got!r}, not {wanted!r}, for a reader who prefers {scheme}"
        ]
    )


def check_axe(visit: PageVisit) -> list[str]:
    problems = []
    for violation in visit.axe or []:
        nodes = "; ".join(f"{node['target']} ({node['summary']})" for node in violation["nodes"])
        problems.append(
            f"{_where(visit)}: axe {violation['impact']} {violation['id']} ({violation['help']}) "
            f"on {violation['count']} element(s): {nodes}"
        )
    return problems


def check_copies(visit: PageVisit, tested: list[str]) -> list[str]:
    """Each copy button copies the code shown, and that is the source the doc-test harness ran
    (``tested``: the page's Python blocks, snippet-expanded, in page order)."""
    problems = []
    if len(visit.copies) != len(tested):
        problems.append(
            f"{_where(visit)}: {len(visit.copies)} Python blocks on the page, {len(tested)} in its Markdown"
        )
    for copy, source in zip(visit.copies, tested):
        number = copy["index"] + 1
        if copy["problem"]:
            problems.append(f"{_where(visit)}: Python block {number} {copy['problem']}")
        elif normalize(copy["text"]) != normalize(copy["shown"]):
            problems.append(
                f"{_where(visit)}: Python block {number}: the copy button copies text that is not the code shown "
                f"(copied {copy['text'][:80]!r}, shown {copy['shown'][:80]!r})"
            )
        elif normalize(copy["text"]) != normalize(source):
            problems.append(
                f"{_where(visit)}: Python block {number}: the copied text is not the source the doc tests ran "
                f"(copied {copy['text'][:80]!r}, tested {source[:80]!r})"
            )
    return problems


def check_copied_run(visit: PageVisit, block: dict, text: str, result: tuple[int, str, str]) -> list[str]:
    """The copied block, run alone in a fresh Python, prints what the output block under it shows."""
    code, stdout, stderr = result
    label = f"{_where(visit)}: Python block {block['index'] + 1}"
    if code != 0:
        tail = "\n".join(stderr.strip().splitlines()[-6:])
        return [f"{label} fails when copied and run alone (exit {code}):\n{tail}"]
    expected, got = normalize(block["output"] or ""), normalize(stdout)
    if got != expected:
        return [f"{label}: copied and run alone it prints\n{got}\nbut the page shows\n{expected}"]
    return []
