"""Run the chapters' notebooks as a kernel runs them, each top to bottom in one namespace, without a kernel each.

A Jupyter kernel costs a second and a half of CPU to start, and the chapters are dozens of notebooks. Here one
process imports what every chapter imports (NumPy, the library, matplotlib on Agg) once, then forks a child per
notebook: each child starts from that state, runs the notebook's cells in order in a fresh ``__main__`` namespace
(as tests/build/lab_runner.py runs a lab's), goes on after a cell that raises (as nbclient with ``allow_errors``
does), and reports what each cell printed. ``os.fork`` is Unix-only; elsewhere the notebooks run one after another
in this process, each in its own namespace.

    python -m tests.build.notebook_runner < request.json > printed.json

The request maps a name to a notebook's code cells (their sources); the answer maps it to one
``{"stdout": text}`` per cell, with ``"error"`` (the exception's type and message) for a cell that raised.
"""

from __future__ import annotations

import io
import json
import os
import selectors
import sys

from tests.build.lab_runner import fresh_namespace, run_cell

CHILDREN = 2  # notebooks run side by side (the machine has 2 cores)


def run_notebook(cells: list[str]) -> list[dict]:
    namespace, printed = fresh_namespace(), []
    for position, source in enumerate(cells):
        out = io.StringIO()
        try:
            run_cell(source, position, namespace, out)
            printed.append({"stdout": out.getvalue()})
        except BaseException as error:  # noqa: BLE001 - reported, and the next cell runs, as in a kernel
            printed.append({"stdout": out.getvalue(), "error": f"{type(error).__name__}: {error}"})
    return printed


def forked(cells: list[str]) -> tuple[int, int]:
    """Start a child that runs ``cells`` and writes its answer to a pipe: (its pid, the pipe's end to read)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        try:
            with os.fdopen(write, "w", encoding="utf-8") as pipe:
                json.dump(run_notebook(cells), pipe)
        finally:
            os._exit(0)
    os.close(write)
    return pid, read


def run_forked(notebooks: dict[str, list[str]]) -> dict[str, list[dict]]:
    """Each notebook in a child, ``CHILDREN`` at a time; every pipe read as it fills (a full pipe blocks its child)."""
    waiting, answers = list(notebooks.items()), {}
    with selectors.DefaultSelector() as ready:
        while waiting or ready.get_map():
            while waiting and len(ready.get_map()) < CHILDREN:
                name, cells = waiting.pop(0)
                pid, read = forked(cells)
                ready.register(read, selectors.EVENT_READ, (name, pid, []))
            for key, _ in ready.select():
                name, pid, chunks = key.data
                chunk = os.read(key.fd, 1 << 16)
                if chunk:
                    chunks.append(chunk)
                    continue
                ready.unregister(key.fd)
                os.close(key.fd)
                _, status = os.waitpid(pid, 0)
                text = b"".join(chunks).decode("utf-8")
                answers[name] = json.loads(text) if text else [{"stdout": "", "error": f"the process ended: {status}"}]
    return answers


def main() -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib.pyplot  # noqa: F401 - imported once, before the forks, as every chapter's figures use it
    import numpy  # noqa: F401

    import transformer_math  # noqa: F401

    notebooks: dict[str, list[str]] = json.load(sys.stdin)
    if hasattr(os, "fork"):
        answers = run_forked(notebooks)
    else:
        answers = {name: run_notebook(cells) for name, cells in notebooks.items()}
    json.dump(answers, sys.stdout)


if __name__ == "__main__":
    main()
