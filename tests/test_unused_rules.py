"""hooks/unused_rules.py: the joined stylesheet loses the rules that no page or script can use, and
nothing else."""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "hooks"))
import unused_rules  # noqa: E402


def purge(css: str, used=("a", "b")) -> str:
    return unused_rules.without_unused_rules(css, lambda name: name in used)


def test_a_selector_naming_an_unused_class_goes_and_a_rule_left_with_none_goes_too():
    assert purge(".a .b{x:1}.c{y:2}.a>.c,.b{z:3}p{w:4}") == ".a .b{x:1}.b{z:3}p{w:4}"


def test_classes_inside_not_is_has_and_attributes_are_not_required():
    css = '.a:not(.c){x:1}:is(.c,.a) p{x:2}.a:has(>.c){x:3}[href$=".c"]{x:4}.a[data-x="a.c"]{x:5}'
    assert purge(css) == css


def test_at_rule_blocks_keep_their_live_rules_and_go_when_empty():
    css = "@media screen{.a{x:1}.c{x:2}@supports (display:grid){.c{x:3}}}@media print{.c{x:4}}"
    assert purge(css) == "@media screen{.a{x:1}}"


def test_blocks_that_are_not_rules_and_braces_in_strings_are_kept_whole():
    css = '@font-face{font-family:F;src:url(f.woff2)}@keyframes k{0%{x:1}to{x:2}}.a:before{content:"}{"}.c:after{content:"{"}'
    assert purge(css) == '@font-face{font-family:F;src:url(f.woff2)}@keyframes k{0%{x:1}to{x:2}}.a:before{content:"}{"}'


def test_a_list_with_a_vendor_prefixed_selector_is_kept_or_dropped_whole():
    # Chromium drops a whole rule whose list has a selector it does not know; pruning the list could
    # turn such a rule on.
    assert purge(".c::-moz-selection,.a::selection{x:1}") == ".c::-moz-selection,.a::selection{x:1}"
    assert purge(".c::-moz-selection,.d::selection{x:1}") == ""


def test_escaped_selectors_are_kept_and_comments_go_but_for_the_source_marks():
    css = "/* assets/x/y.min.css */\n.\\31 0{x:1}/* why */.a{x:2}"
    assert purge(css) == "/* assets/x/y.min.css */\n.\\31 0{x:1}.a{x:2}"


def test_an_unbalanced_stylesheet_is_an_error():
    for css in (".a{x:1}}", "@media screen{.a{x:1}", ".a{x:1"):
        try:
            purge(css)
        except ValueError:
            continue
        raise AssertionError(f"no error for {css!r}")


def test_classes_of_pages_words_of_scripts_and_the_prefixes_scripts_complete():
    page = """<div class="md-typeset one">text</div><svg class='icon'></svg><p class=bare>more</p>
        <style>.three{}</style><script>document.body.classList.add("inline-added")</script>"""
    words, prefixes = unused_rules.used_words([page], ['e.classList.add("md-header--shadow");x=`tabbed-control--${d}`'])
    assert {"md-typeset", "one", "icon", "bare", "inline-added", "md-header--shadow"} <= words
    assert not {"text", "more", "three"} & words  # a page's text names no class; a stylesheet is not a use
    assert prefixes == ("tabbed-control--",)


def test_the_shipped_stylesheet_is_named_by_its_content_and_has_no_rule_for_an_unused_feature(built_site):
    (sheet,) = (built_site / "assets" / "stylesheets").glob("site.*.css")
    css = sheet.read_text(encoding="utf-8")
    assert sheet.name == f"site.{hashlib.sha256(css.encode()).hexdigest()[:8]}.css"
    pages = "".join(page.read_text(encoding="utf-8") for page in built_site.rglob("*.html"))
    assert "tabbed-set" not in pages and "tabbed-set" not in css  # no page has content tabs
    # What pages use stays: the theme's header, KaTeX's layout, the guide's own rules.
    for selector in (".md-header", ".katex .vlist-t", ".md-typeset .md-chunk", ".md-typeset .language-output::before"):
        assert selector in css, selector
    assert len(css) < 150_000  # the theme's, KaTeX's and the guide's stylesheets joined: 186 KB
