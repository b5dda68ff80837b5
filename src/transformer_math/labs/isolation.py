r"""Whether a lab's check runs the learner's function alone: no thread started in an earlier cell running the
notebook's code, no process it started still running, no pipe or socket to another process in the function's
reach. Work handed to a worker outside the check's thread runs out of the guard's sight (``guard``), and would
pass every check but the loops exercise's.

Example
-------
>>> from transformer_math.labs.isolation import not_alone
>>> not_alone() is None  # no worker of the notebook's: a check may start
True
"""

from __future__ import annotations

import glob
import io
import os
import stat
import sys
import threading
import weakref

from transformer_math.labs.authorship import _kind

ALONE = "a check runs your function alone, in this process"


def thread_message(where: str) -> str:
    return f"a thread started before the check is running your code ({where}); {ALONE}: stop the thread and run the check again"


def learner_thread() -> str | None:
    """A thread other than this one with the learner's code on its stack (a worker started in an earlier cell,
    waiting on a queue for the learner's function to hand it work): ``its name, in function (line n)``. The
    threads of Jupyter, IPython and pytest run no code of the notebook's."""
    me = threading.get_ident()
    for ident, frame in sys._current_frames().items():
        while ident != me and frame is not None:
            if _notebooks(frame):
                thread = threading._active.get(ident)  # noqa: SLF001 - the name of a thread by its id
                name = thread.name if thread is not None else f"thread {ident}"
                return f"{name}, in {frame.f_code.co_name} (line {frame.f_lineno})"
            frame = frame.f_back
    return None


# Clock ticks (1/100 s on Linux) of CPU another thread may use while a check's call runs: Jupyter's own threads
# (heartbeat, IOPub, history) and pytest's wake for far less; a worker that computes for the learner's function
# uses the CPU the function does not.
SLACK = 5


def _stat(path: str) -> list[str]:
    """The fields of a Linux ``stat`` file after the command's name: the state first (``R``, ``Z``, ...), then the
    parent, ..., user and system time 12th and 13th."""
    with open(path) as status:
        return status.read().rpartition(")")[2].split()


def thread_ticks() -> dict[int, int]:
    """The CPU time, in clock ticks (user + system), of every thread of this process but this one, by its id, where
    Linux tells (``/proc/self/task/*/stat``); none elsewhere."""
    me, found = threading.get_native_id(), {}
    for path in glob.glob("/proc/self/task/*/stat"):
        try:
            task = int(path.split("/")[-2])
            fields = _stat(path)
            if task != me:
                found[task] = int(fields[11]) + int(fields[12])
        except (OSError, ValueError, IndexError):
            continue
    return found


def busy_thread(before: dict[int, int]) -> str | None:
    """Another thread that used more than ``SLACK`` ticks of CPU since ``before`` (``thread_ticks``): ``its name,
    n clock ticks of CPU``, else None."""
    after = thread_ticks()
    worked = {task: ticks - before.get(task, ticks) for task, ticks in after.items()}
    task, ticks = max(worked.items(), key=lambda item: item[1], default=(None, 0))
    if ticks <= SLACK:
        return None
    names = {thread.native_id: thread.name for thread in threading.enumerate()}
    return f"{names.get(task, f'thread {task}')}, {ticks} clock ticks of CPU"


def busy_message(where: str) -> str:
    return f"another thread ran while the check did ({where}): {ALONE}: stop the thread and run the check again"


def company(before: dict[int, int]) -> str | None:
    """Why a check's call, just ended, did not run alone, or None: a thread with the notebook's code on its stack,
    or one that used the CPU meanwhile (``before``: ``thread_ticks`` when the call began)."""
    helper = learner_thread()
    if helper:
        return thread_message(helper)
    busy = busy_thread(before)
    return busy_message(busy) if busy else None


GUIDE = "transformer_math"  # the guide's library: a process it starts is not the notebook's
_STARTED: list = []  # the processes the notebook's own code started: weak references to their Popen, or None


def _live_children() -> list[int]:
    """The live child processes of this process's threads, where Linux says (``/proc/self/task/*/children``);
    none elsewhere."""
    found = []
    for path in glob.glob("/proc/self/task/*/children"):
        try:
            with open(path) as listing:
                found += [int(pid) for pid in listing.read().split()]
        except (OSError, ValueError):
            continue
    live = []
    for pid in found:
        try:
            state = _stat(f"/proc/{pid}/stat")[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X"):  # a zombie has finished: nothing of it runs
            live.append(pid)
    return live


def not_alone() -> str | None:
    """Why a check may not start now, or None: another thread runs the notebook's code, or a process the
    notebook's code started before the check is still running (Linux tells; pytest's and Jupyter's own
    processes are started by their code, not the notebook's)."""
    helper = learner_thread()
    if helper:
        return thread_message(helper)
    children = _live_children() if _STARTED else []
    if None not in _STARTED:  # only processes started through a Popen, whose ids are known
        started = {getattr(owner(), "pid", None) for owner in _STARTED}
        children = [pid for pid in children if pid in started]
    if children:
        pids = ", ".join(map(str, children[:3]))
        return (
            f"a process started before the check is still running (pid {pids}); {ALONE}: stop it (or restart the "
            "kernel) and run the check again"
        )
    return None


PROCESS_STARTS = ("subprocess.Popen", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.exec")


def note_start(event: str) -> None:
    """Remember a process the notebook's own code starts (its first caller that is not the standard library or
    a package: code in ``__main__`` or in globals exec was given), by the Popen that starts it where there is one
    (``subprocess``'s and ``multiprocessing``'s hold the child's id once it starts)."""
    caller = frame = sys._getframe(2)
    while frame is not None:
        kind = _kind(frame.f_code, frame.f_globals)
        if kind == "learner" or (kind == "library" and str(frame.f_globals.get("__name__")).startswith(GUIDE)):
            if _notebooks(frame):
                owner = caller.f_locals.get("self") if caller is not frame else None
                try:
                    _STARTED.append(weakref.ref(owner) if owner is not None else None)
                except TypeError:
                    _STARTED.append(None)
            return
        frame = frame.f_back


def _notebooks(frame) -> bool:
    """Whether a frame runs the notebook's own code: the learner's, in ``__main__`` or in globals exec was given
    (not a module of files, such as pytest's tests and their helpers)."""
    namespace = frame.f_globals
    name = namespace.get("__name__") if isinstance(namespace, dict) else None
    if _kind(frame.f_code, namespace) != "learner":
        return False
    return name == "__main__" or getattr(sys.modules.get(name), "__dict__", None) is not namespace


def channel(value) -> bool:
    """Whether ``value`` is a file or socket whose descriptor is a pipe or a socket: a way to hand work to
    another process (the pipes of a ``subprocess.Popen`` started in an earlier cell)."""
    if not isinstance(value, io.IOBase) and type(value).__module__ not in ("socket", "_socket"):
        return False  # only the standard library's files and sockets: no code of the learner's runs here
    try:
        descriptor = value.fileno()
        if not isinstance(descriptor, int):
            return False
        mode = os.fstat(descriptor).st_mode
    except Exception:  # noqa: BLE001 - closed, or no descriptor at all (a StringIO): nothing to talk through
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
