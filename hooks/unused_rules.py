"""The joined stylesheet without the rules that no page can use.

The theme's stylesheet styles every feature it offers: content tabs, grids of cards, admonitions,
annotations, tooltips, blog posts... A browser checks each of its selectors against each element it
styles (the ones whose last part is a bare ``:nth-child()`` or ``*`` against every element), so on
part-3/derivatives Chromium spent about 40% of its selector matching on the 152 selectors of content
tabs, a feature no page uses (its CSS selector statistics). After the build, this hook removes every
selector that names a class appearing nowhere in the site's pages and scripts, and every rule left with
no selector. The shipped file is smaller too (186 KB to 120 KB, 32 KB to 22 KB gzipped).

A class counts as used when it is in a ``class`` attribute of a built page, or a word anywhere in a
script of the site, inline or a file of its own (whatever a script adds, it names: the theme's script
keeps ``md-header--shadow``). A word the theme's script finishes at run time
(```tabbed-control--${...}```) keeps every class that begins with it. The check is deliberately coarse:
a selector is dropped only for a class it requires, never for a tag, an attribute or what is inside
``:not()``, ``:is()`` or ``:has()``; a list that contains a vendor-prefixed selector is kept or dropped
as a whole (a browser ignores a whole rule whose list has a selector it does not know, so dropping part
of it could make a rule valid that was not).

The stylesheet's name carries the hash of what it now contains (first_paint named it by the joined
content), and every page's link is renamed to it, so a browser never keeps a stale copy: when a page
starts using content tabs, their rules come back under a new name.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

WORD = re.compile(r"[A-Za-z0-9_-]+")
CLASS_ATTRIBUTE = re.compile(r"""class=["']?([^"'>]*)""")  # its value, quoted or not (then maybe more)
INLINE_SCRIPT = re.compile(r"<script\b[^>]*>(.*?)</script>", re.S)
RUNTIME_PREFIX = re.compile(r"[A-Za-z][\w-]*[-_]$")  # before "${": a class a script finishes at run time
# A stylesheet at this level: comments and strings (which may hold braces) are skipped whole.
TOKEN = re.compile(r"/\*.*?\*/|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|[{};]", re.S)
CONTAINER_AT_RULES = ("@media", "@supports", "@container", "@layer", "@scope", "@document")
PARENS = re.compile(r"\([^()]*\)")
ATTRIBUTE = re.compile(r"\[[^\]]*\]")
CLASS = re.compile(r"\.(-?[A-Za-z_][\w-]*)")
VENDOR_PSEUDO = re.compile(r"::?-[a-z]")
SOURCE_MARK = re.compile(r"/\* [\w./-]+\.css \*/")  # hooks/first_paint.py heads each part with its path


def used_words(pages, scripts) -> tuple[set[str], tuple[str, ...]]:
    """The words of every ``class`` attribute of ``pages`` (their HTML) and of every script (the
    site's script files, and the pages' inline scripts), and the class prefixes the scripts complete."""
    attributes: set[str] = set()  # split once each: pages repeat the same few thousand values
    scripts = list(scripts)
    for html in pages:
        attributes.update(CLASS_ATTRIBUTE.findall(html))
        scripts += INLINE_SCRIPT.findall(html)
    words = set(" ".join(attributes).split())
    prefixes: set[str] = set()
    for script in set(scripts):  # most pages carry the same inline scripts
        words.update(WORD.findall(script))
        for before in script.split("${")[:-1]:
            prefixes.update(RUNTIME_PREFIX.findall(before[-100:]))
    return words, tuple(sorted(prefixes))


def required_classes(selector: str) -> list[str] | None:
    """The classes an element must have for ``selector`` to match it, or None when this cannot tell
    (an escaped character)."""
    if "\\" in selector:
        return None
    bare = ATTRIBUTE.sub("", selector)
    while PARENS.search(bare):  # what is inside :not(), :is(), :has(), :nth-child(... of ...) is not required
        bare = PARENS.sub("", bare)
    return CLASS.findall(bare)


def split_selectors(prelude: str) -> list[str]:
    """A selector list cut at its top-level commas (not those inside ``:is(a, b)``)."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(prelude):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(prelude[start:i])
            start = i + 1
    parts.append(prelude[start:])
    return [part.strip() for part in parts]


def kept_selectors(prelude: str, used) -> str:
    """The selectors of a rule that can match an element of the site, joined again ("" for none)."""
    selectors = split_selectors(prelude)

    def alive(selector: str) -> bool:
        classes = required_classes(selector)
        return classes is None or all(used(name) for name in classes)

    if any(VENDOR_PSEUDO.search(selector) for selector in selectors):
        return ",".join(selectors) if any(alive(selector) for selector in selectors) else ""
    return ",".join(selector for selector in selectors if alive(selector))


def without_unused_rules(css: str, used) -> str:
    """``css`` without the selectors that name a class ``used(name)`` is false for, without the rules
    left with none, and without the at-rule blocks (``@media``...) left empty. Comments go too, but
    for the line that names the file each part of the joined stylesheet came from."""
    out: list[str] = []
    stack: list[tuple[list[str], str]] = []  # enclosing blocks: (their output so far, their prelude)
    start, pending = 0, []  # pending: text of the prelude being read (comments dropped)
    position = 0
    while match := TOKEN.search(css, position):
        token, position = match.group(0), match.end()
        if token.startswith("/*"):
            pending.append(css[start:match.start()])
            start = match.end()
            if SOURCE_MARK.fullmatch(token) and not "".join(pending).strip():
                out.append(token + "\n")  # where the next part of the joined stylesheet came from
            continue
        if token[0] in "\"'":
            continue
        prelude = ("".join(pending) + css[start:match.start()]).strip()
        pending = []
        if token == ";":  # a statement at-rule (@import, @charset) or a declaration
            out.append(prelude + ";")
        elif token == "{":
            if prelude.startswith(CONTAINER_AT_RULES):
                stack.append((out, prelude))
                out = []
            else:  # a rule or a block kept whole (@font-face, @keyframes...): copy to its closing brace
                end = _closing_brace(css, match.end())
                selectors = prelude if prelude.startswith("@") else kept_selectors(prelude, used)
                if selectors:
                    out.append(f"{selectors}{{{css[match.end():end]}}}")
                start = position = end + 1
                continue
        else:  # "}" closes a container at-rule
            if not stack:
                raise ValueError(f"unbalanced '}}' at offset {match.start()} of the stylesheet")
            inner = "".join(out)
            out, at_prelude = stack.pop()
            if inner.strip():
                out.append(f"{at_prelude}{{{inner}}}")
        start = match.end()
    if stack:
        raise ValueError("the stylesheet ends inside a block")
    return "".join(out)


def _closing_brace(css: str, position: int) -> int:
    depth = 1
    for match in TOKEN.finditer(css, position):
        token = match.group(0)
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
            if depth == 0:
                return match.start()
    raise ValueError("the stylesheet ends inside a rule")


def on_post_build(config):
    site_dir = Path(config.site_dir)
    name = config.extra.get("stylesheet")
    if not name:
        return
    path = site_dir / name
    pages = {page: page.read_text(encoding="utf-8") for page in site_dir.rglob("*.html")}  # read once
    scripts = [script.read_text(encoding="utf-8", errors="replace") for script in site_dir.rglob("*.js")]
    words, prefixes = used_words(pages.values(), scripts)
    css = without_unused_rules(path.read_text(encoding="utf-8"), lambda cls: cls in words or cls.startswith(prefixes))
    new_name = f"site.{hashlib.sha256(css.encode()).hexdigest()[:8]}.css"
    path.unlink()
    (path.parent / new_name).write_text(css, encoding="utf-8")
    config.extra["stylesheet"] = Path(name).with_name(new_name).as_posix()
    for page, html in pages.items():
        if path.name in html:
            page.write_text(html.replace(path.name, new_name), encoding="utf-8")
