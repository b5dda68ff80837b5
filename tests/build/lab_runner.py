"""Run one lab's typical mistakes and other right answers, each as if the notebook ran with that one cell changed,
without running the cells before it again for every case.

A case changes one exercise cell; everything before that cell runs exactly as in the solved lab. So this runs the
solved lab's code cells in order in one Python process, and at an exercise cell that a case changes it forks: the
child runs the case's code in place of the cell and then the cells up to the exercise's own checks (a mistake
must be refused where it is made), and reports what the checks printed, from the first cell on;
the parent runs the reference solution and goes on. A lab of 36 cases costs one run of its prefix instead of 36
(and no kernel start per case). ``os.fork`` is Unix-only; elsewhere each case runs the notebook in its own process.
The parent's own run is the solved lab: what it printed and the CPU time it took are reported too.

Cells run as a kernel runs them: in one namespace called ``__main__``, their source kept in ``linecache`` (so
``inspect.getsource`` reads a function the learner wrote), ``display`` a no-op, matplotlib on Agg.

    python -m tests.build.lab_runner < request.json > verdicts.json

The request is ``{"cells": [code, ...], "cases": [[key, cell position, code, stop], ...]}`` (the child runs the cells
before position ``stop``); the answer maps each key to what the checks printed, or to ``{"error": traceback}`` when a
cell raised (nbclient would stop there too), and ``"solved"`` to the solved run's printed text and ``"cpu"`` seconds.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import linecache
import os
import sys
import time
import traceback

CASE_TIMEOUT = 120  # seconds of CPU a case may use after its fork (CPU, not wall time: the machine may be busy)


def run_cells(cells: list[str], namespace: dict, first: int, out: io.StringIO, stop: int | None = None) -> None:
    for position in range(first, len(cells) if stop is None else stop):
        run_cell(cells[position], position, namespace, out)


def run_cell(source: str, position: int, namespace: dict, out: io.StringIO) -> None:
    filename = f"<cell {position}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    with contextlib.redirect_stdout(out):
        exec(compile(source, filename, "exec"), namespace)


def run_case(cells: list[str], position: int, code: str, namespace: dict, out: io.StringIO, stop=None) -> dict:
    try:
        run_cells([*cells[:position], code, *cells[position + 1 :]], namespace, position, out, stop)
        return {"printed": out.getvalue()}
    except BaseException:  # noqa: BLE001 - reported as the case's result
        return {"error": traceback.format_exc(), "printed": out.getvalue()}


def forked(cells: list[str], position: int, code: str, namespace: dict, out: io.StringIO, stop=None) -> dict:
    """The case's result, computed in a child that starts from the parent's state before cell ``position``."""
    fingerprint = sys.modules.get("transformer_math.labs.fingerprint")
    if fingerprint is not None:  # what the checks build once, built here: the children share it
        fingerprint.warm()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        try:
            import signal

            signal.setitimer(signal.ITIMER_PROF, CASE_TIMEOUT)
            result = run_case(cells, position, code, namespace, out, stop)
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
    namespace, out = fresh_namespace(), io.StringIO()
    if not hasattr(os, "fork"):  # each case in a namespace of its own: the cells before it, then the case
        for key, position, code, stop in cases:
            alone, printed = fresh_namespace(), io.StringIO()
            run_cells(cells, alone, 0, printed, position)
            results[key] = run_case(cells, position, code, alone, printed, stop)
    start = time.process_time()
    for position, source in enumerate(cells):
        for key, at, code, stop in cases:
            if at == position and hasattr(os, "fork"):
                sys.stdout.flush()
                started = time.process_time()  # the fork's copy of the parent's state is not the solved run's time
                results[key] = forked(cells, position, code, namespace, out, stop)
                start += time.process_time() - started
        try:
            run_cell(source, position, namespace, out)
        except BaseException:  # noqa: BLE001 - the solved lab itself fails: reported
            results["solved"] = {"error": traceback.format_exc(), "printed": out.getvalue()}
            break
    else:
        results["solved"] = {"printed": out.getvalue(), "cpu": time.process_time() - start}
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
