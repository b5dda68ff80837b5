"""Session fixtures computed in the background, so that what is slow runs while other tests run.

Building the site, printing its PDF, reading every page in Chromium and running notebooks in kernels take minutes,
mostly waiting on other processes. A fixture declared with ``@background`` starts in a thread of its own as soon
as the tests are collected, when a collected test needs it (``start_needed``, from tests/conftest.py); the
pages and the library are tested meanwhile (``testpaths`` puts them first), and the fixture hands over its
value, or raises what its computation raised, when a test asks for it. One job may wait for another's value
(``result``): the PDF and the browser start the moment the site is built.

On two cores the jobs outnumber the cores, and the run lasts as long as its longest chains: building the site then
reading it, and the tests themselves, one after another in this thread. So those run first: on Linux a job declared
``@background(nice=N)`` runs its thread, and what that thread starts, N steps below them in the scheduler's
priority (``lower_priority``); the CPU the chains leave idle is its, the time a chain waits for a core is not.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

_JOBS: dict[str, _Job] = {}
_PROCESSES: list[subprocess.Popen] = []
_LOCK = threading.Lock()
_TEMP: list[Path] = []
WAIT_LIMIT = 30 * 60  # seconds a test waits for a job's value
_DEFERRED: list[_Job] = []  # needed jobs with threads_here, not yet started
COLLECTED: list = []  # the session's collected tests, for a job that computes only what they need


def lower_priority(steps: int) -> None:
    """The calling thread, and every process it starts from now on, ``steps`` niceness steps lower. Linux sets
    niceness per thread; elsewhere ``os.nice`` would lower the whole session, so it does nothing there."""
    if steps and sys.platform == "linux":
        os.nice(steps)


class _Job:
    def __init__(self, compute: Callable[[], object], nice: int = 0, threads_here: bool = False) -> None:
        self.compute = compute
        self.nice = nice
        self.threads_here = threads_here
        self.thread: threading.Thread | None = None
        self.done = threading.Event()
        self.value: object = None
        self.error: BaseException | None = None
        self.started = self.ended = 0.0  # time.monotonic(), for the session's summary

    def start(self) -> None:
        with _LOCK:
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name=self.compute.__name__, daemon=True)
                self.thread.start()

    def _run(self) -> None:
        self.started = time.monotonic()
        try:
            lower_priority(self.nice)
            self.value = self.compute()
        except BaseException as error:  # noqa: BLE001 - raised again in the test that asks for the value
            self.error = error
        finally:
            self.ended = time.monotonic()
            self.done.set()

    def result(self):
        self.start()
        if not self.done.wait(WAIT_LIMIT):  # a hung browser or build fails its tests instead of stalling CI
            raise TimeoutError(f"{self.compute.__name__} did not finish within {WAIT_LIMIT / 60:.0f} minutes")
        if self.error is not None:
            raise self.error
        return self.value


def background(compute: Callable[[], object] | None = None, *, nice: int = 0, threads_here: bool = False):
    """A session fixture named like ``compute``, whose value ``compute()`` makes in the background, ``nice`` steps
    below the site's build and reading in priority (``@background(nice=5)``) when it is not on their chain.
    ``threads_here``: it runs Python threads of its own in this process (kernels' clients, say), so it starts only
    once the tests that must have the process to themselves have run (``start_deferred``)."""
    if compute is None:
        return lambda compute: background(compute, nice=nice, threads_here=threads_here)
    job = _JOBS[compute.__name__] = _Job(compute, nice, threads_here)

    def fixture():
        return job.result()

    fixture.__doc__ = compute.__doc__
    return pytest.fixture(scope="session", name=compute.__name__)(fixture)


def order(items, ready_order: list[str], alone) -> None:
    """Reorder ``items`` in place: first the tests ``alone(item)`` says must have the process to itself (no job's
    Python thread beside them: ``threads_here``), then the test modules that ask for no background value, then
    the others by the last job they wait for, in ``ready_order`` (the order the jobs are expected to finish), so
    that the tests run while the jobs do instead of waiting for them early. A job not listed counts as the last."""
    rank = {name: ready_order.index(name) if name in ready_order else len(ready_order) for name in _JOBS}
    waits: dict[object, int] = {}
    for item in items:
        needed = [rank[name] for name in getattr(item, "fixturenames", ()) if name in rank]
        if needed:
            waits[item.path] = max(waits.get(item.path, -1), *needed)
        elif alone(item):
            waits.setdefault(item.path, -2)
    items.sort(key=lambda item: waits.get(item.path, -1))  # stable: each group keeps its order


def timings(since: float) -> list[str]:
    """One line per job that ran: when it started and ended, in seconds after ``since`` (where the minutes go)."""
    return [
        f"{name:28s} {job.started - since:6.1f} s → {job.ended - since:6.1f} s  ({job.ended - job.started:5.1f} s)"
        for name, job in sorted(_JOBS.items(), key=lambda item: item[1].started)
        if job.done.is_set()
    ]


def result(name: str):
    """Another background fixture's value, from within a job."""
    return _JOBS[name].result()


def start_needed(items) -> None:
    """Start every background fixture that a collected test needs, but those with ``threads_here``
    (``start_deferred``)."""
    COLLECTED[:] = items
    needed = {name for item in items for name in getattr(item, "fixturenames", ())} & set(_JOBS)
    for name in needed:
        if not _JOBS[name].threads_here:
            _JOBS[name].start()
        else:
            _DEFERRED.append(_JOBS[name])


def start_deferred() -> None:
    """Start the needed jobs that run Python threads in this process (``threads_here``). Their kernels' clients
    import IPython in their threads; matplotlib reads ``sys.modules["IPython"]`` without importing it, and a test
    drawing a figure meanwhile met the module half made. So it is imported whole here first."""
    if _DEFERRED and importlib.util.find_spec("IPython") is not None:
        importlib.import_module("IPython")
    while _DEFERRED:
        _DEFERRED.pop().start()


def run(command: list[str], input: str | None = None, **options) -> subprocess.CompletedProcess:  # noqa: A002
    """``subprocess.run(command, input=input, capture_output=True, text=True)``, stopped if the session ends first."""
    stdin = subprocess.PIPE if input is not None else None
    process = subprocess.Popen(
        command, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **options
    )
    with _LOCK:
        _PROCESSES.append(process)
    stdout, stderr = process.communicate(input)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def start(command: list[str], log: Path, **options) -> subprocess.Popen:
    """``command`` started with its output (stdout and stderr) written to ``log``, stopped if the session ends first."""
    with open(log, "w", encoding="utf-8") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, text=True, **options)
    with _LOCK:
        _PROCESSES.append(process)
    return process


def temp_dir(prefix: str) -> Path:
    """A new folder, removed when the session ends."""
    path = Path(tempfile.mkdtemp(prefix=f"transformer-math-{prefix}-"))
    with _LOCK:
        _TEMP.append(path)
    return path


def stop() -> None:
    """At the end of the session: stop what still runs (a run cut short by -x) and remove the folders."""
    with _LOCK:
        for process in _PROCESSES:
            if process.poll() is None:
                process.kill()
        for path in _TEMP:
            shutil.rmtree(path, ignore_errors=True)
