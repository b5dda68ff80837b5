"""Run one lab's typical mistakes and other right answers, each as if the whole notebook ran with that one cell
changed, without running the cells before it again for every case.

A case changes one exercise cell; everything before that cell runs exactly as in the solved lab. So this runs the
solved lab's code cells in order in one Python process, and at an exercise cell that a case changes it forks: the
child runs the case's code in place of the cell and then the rest of the notebook, and reports what the checks
printed, from the first cell on; the parent runs the reference solution and goes on. A lab of 36 cases costs one run
of its prefix instead of 36 (and no kernel start per case). ``os.fork`` is Unix-only; elsewhere each case runs the
whole notebook in its own process.

Cells run as a kernel runs them: in one namespace called ``__main__``, their source kept in ``linecache`` (so
``inspect.getsource`` reads a function the learner wrote), ``display`` a no-op, matplotlib on Agg.

    python -m tests.build.lab_runner < request.json > verdicts.json

The request is ``{"cells": [code, ...], "cases": [[key, cell position, code], ...]}``; the answer maps each key to
what the checks printed, or to ``{"error": traceback}`` when a cell raised (nbclient would stop there too).
"""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import linecache
import os
import sys
import traceback

CASE_TIMEOUT = 120  # seconds a case may run after its fork: nbclient's 60 s per cell, for a few cells


def run_cells(cells: list[str], namespace: dict, first: int, out: io.StringIO) -> None:
    for position in range(first, len(cells)):
        run_cell(cells[position], position, namespace, out)


def run_cell(source: str, position: int, namespace: dict, out: io.StringIO) -> None:
    filename = f"<cell {position}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    with contextlib.redirect_stdout(out):
        exec(compile(source, filename, "exec"), namespace)


def run_case(cells: list[str], position: int, code: str, namespace: dict, out: io.StringIO) -> dict:
    try:
        run_cells([*cells[:position], code, *cells[position + 1 :]], namespace, position, out)
        return {"printed": out.getvalue()}
    except BaseException:  # noqa: BLE001 - reported as the case's result
        return {"error": traceback.format_exc(), "printed": out.getvalue()}


def forked(cells: list[str], position: int, code: str, namespace: dict, out: io.StringIO) -> dict:
    """The case's result, computed in a child that starts from the parent's state before cell ``position``."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        try:
            import signal

            signal.alarm(CASE_TIMEOUT)
            result = run_case(cells, position, code, namespace, out)
            with os.fdopen(write, "w", encoding="utf-8") as pipe:
                json.dump(result, pipe)
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, encoding="utf-8") as pipe:
        text = pipe.read()
    _, status = os.waitpid(pid, 0)
    return json.loads(text) if text else {"error": f"the case's process ended with status {status}", "printed": ""}


def fresh_namespace() -> dict:
    return {"__name__": "__main__", "__builtins__": builtins, "display": lambda *objects, **options: None}


def main() -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")
    request = json.load(sys.stdin)
    cells, cases = request["cells"], request["cases"]
    results: dict[str, dict] = {}
    if not hasattr(os, "fork"):
        for key, position, code in cases:
            results[key] = run_case(cells, position, code, fresh_namespace(), io.StringIO())
    else:
        namespace, out = fresh_namespace(), io.StringIO()
        for position, source in enumerate(cells):
            for key, at, code in cases:
                if at == position:
                    sys.stdout.flush()
                    results[key] = forked(cells, position, code, namespace, out)
            run_cell(source, position, namespace, out)
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
