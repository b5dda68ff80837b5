#!/usr/bin/env python3
"""The guide's Python blocks, executed in one plain Python process: the floor for `pytest docs`.

The blocks are read and snippet-expanded exactly as the doc-test harness reads them (tools/docblocks.py),
once, into benchmarks/build/blocks.json (not timed). The timed run then only executes them: each block in
a fresh namespace, a "Continued" block in its predecessor's namespace, stdout captured, as the harness
does, without pytest. `--count` prints how many blocks there are.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "benchmarks" / "build" / "blocks.json"


def extract() -> list[dict]:
    sys.path.insert(0, str(ROOT))
    from tools.docblocks import SnippetExpander, pair_examples

    expander = SnippetExpander(ROOT / "mkdocs.yml")
    blocks = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        examples, _ = pair_examples(page.read_text(encoding="utf-8"))
        for example in examples:
            code = "\n".join(expander.expand(example.code.body))
            blocks.append({"page": str(page.relative_to(ROOT)), "number": example.number, "code": code,
                           "continues": example.code.continues})
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    CACHE.write_text(json.dumps(blocks), encoding="utf-8")
    return blocks


def main() -> int:
    if "--count" in sys.argv:
        print(len(extract()))
        return 0
    blocks = json.loads(CACHE.read_text(encoding="utf-8")) if CACHE.exists() else extract()
    import numpy

    options = numpy.get_printoptions()
    namespace: dict = {}
    failures = 0
    for block in blocks:
        if not block["continues"]:
            namespace = {"__name__": "__main__"}
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(block["code"], f"{block['page']} block {block['number']}", "exec"), namespace)
        except Exception as err:  # noqa: BLE001 - counted, the floor is still a floor
            failures += 1
            print(f"{block['page']} block {block['number']}: {type(err).__name__}: {err}", file=sys.stderr)
        finally:
            numpy.set_printoptions(**options)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
