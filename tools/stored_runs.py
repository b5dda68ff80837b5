"""Training runs too long for a page, done once and stored in the library, where a page reads them back.

A chapter's module registers each such run with ``@stored_run(name, replay=..., settings=...)`` on the function
that does it: the function returns the run's result, a dict of numbers, strings and arrays with ``"text"``, the
name of the text it trained on; ``settings()`` is what the run is made from; ``replay(steps)``
does the first ``steps`` steps of every training in the run again, in float64, and returns their losses. The
stored result holds those first 50 losses as its ``fingerprint`` beside its ``settings`` and the SHA-256 of the
text it trained on (``data_sha256``), so ``tests/pages/test_stored_runs.py`` can tell a stored run from one
that today's code, text or settings would give: float64 steps repeat to 1e-15 across machines, where float32
steps drift apart by 1e-4 within 50 steps when a different BLAS kernel sums in a different order.

One command redoes every stored run (or those named), one core each, and writes them into
``src/transformer_math/data/NAME.npz``, which ``transformer_math.data.load_run`` reads; ``--check`` only
compares each stored run with what today's code gives for its first steps, on one core, as the test does::

    python -m tools.stored_runs                 # every run: about two hours of one core
    python -m tools.stored_runs ladder          # one
    python -m tools.stored_runs --check ladder  # seconds

Weights go in as float16 (``params``), only where a run stores them.
"""

from __future__ import annotations

import os

if __name__ == "__main__":  # one core: set before NumPy loads its BLAS, which reads them once
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_variable] = "1"

import argparse  # noqa: E402
import hashlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import numpy as np  # noqa: E402

from tools import chapters  # noqa: E402
from tools.cache import ROOT  # noqa: E402
from transformer_math.data import load_text  # noqa: E402

FOLDER = ROOT / "src" / "transformer_math" / "data"
FINGERPRINT_STEPS = 50


@dataclass(frozen=True)
class StoredRun:
    run: Callable[[], dict]  # the whole run: minutes of one core
    replay: Callable[[int], np.ndarray]  # the float64 losses of the first steps of every training in the run
    settings: Callable[[], dict]  # what the run is made from, as the module defines it now


RUNS: dict[str, StoredRun] = {}


def stored_run(name: str, replay: Callable[[int], np.ndarray], settings: Callable[[], dict]):
    """Register the function that does the run ``name`` (stored as ``NAME.npz`` in ``transformer_math.data``)."""

    def register(run: Callable[[], dict]) -> Callable[[], dict]:
        if name in RUNS and RUNS[name].run.__module__ != run.__module__:
            raise ValueError(f"stored run {name!r} is registered by {RUNS[name].run.__module__} and {run.__module__}")
        RUNS[name] = StoredRun(run, replay, settings)
        return run

    return register


def registered() -> dict[str, StoredRun]:
    """Every stored run of every chapter."""
    chapters.import_all()
    from tools.stored_runs import RUNS as runs  # the registry the chapters filled, also when this runs as __main__

    return runs


def to_npz(result: dict) -> bytes:
    """A run's result as the bytes of an ``.npz``: arrays as themselves, ``params`` as float16 arrays, and
    everything else (settings, numbers, strings, lists) as one JSON text, ``meta``."""
    arrays = {key: np.asarray(value) for key, value in result.items() if isinstance(value, np.ndarray)}
    params = {f"params.{key}": value.astype(np.float16) for key, value in result.get("params", {}).items()}
    meta = {key: value for key, value in result.items() if key not in arrays and key != "params"}
    buffer = io.BytesIO()
    np.savez_compressed(buffer, meta=np.array(json.dumps(meta, sort_keys=True)), **arrays, **params)
    return buffer.getvalue()


def redo(name: str) -> None:
    """Do the run ``name`` and store it, with its settings and the fingerprint of its first steps."""
    stored = registered()[name]
    start = time.process_time()
    result = stored.run()  # with "text": the name of the text it trained on
    text = load_text(result["text"]).encode("utf-8")
    result |= {"settings": stored.settings(), "data_sha256": hashlib.sha256(text).hexdigest()}
    result["fingerprint"] = np.asarray(stored.replay(FINGERPRINT_STEPS))
    path = FOLDER / f"{name}.npz"
    path.write_bytes(to_npz(result))
    minutes = (time.process_time() - start) / 60
    print(f"{name}: {minutes:.1f} min of CPU, {path.stat().st_size:,} bytes in {path.relative_to(ROOT)}", flush=True)


def problems(name: str) -> list[str]:
    """What differs between the stored run ``name`` and what today's code, text and settings give: its text's
    hash, its settings, and the float64 losses of its first steps, which must agree to 1e-6."""
    from transformer_math.data import load_run

    stored, run = load_run(name), registered()[name]
    found = []
    if stored["data_sha256"] != hashlib.sha256(load_text(stored["text"]).encode("utf-8")).hexdigest():
        found.append(f"{name}: the text {stored['text']!r} has changed since the run")
    if stored["settings"] != json.loads(json.dumps(run.settings())):
        found.append(f"{name}: the settings have changed since the run")
    replayed = np.asarray(run.replay(FINGERPRINT_STEPS))
    if replayed.shape != stored["fingerprint"].shape:
        found.append(f"{name}: {replayed.shape} losses replayed, {stored['fingerprint'].shape} stored")
    elif not np.allclose(replayed, stored["fingerprint"], rtol=1e-6, atol=0):
        worst = np.max(np.abs(replayed / stored["fingerprint"] - 1))
        found.append(f"{name}: the first {FINGERPRINT_STEPS} steps give other losses (relative difference {worst:.1e})")
    return found


def main() -> None:
    names = sorted(registered())
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"runs to redo (default: all of {', '.join(names)})")
    parser.add_argument("--check", action="store_true", help="compare with today's code instead of redoing")
    arguments = parser.parse_args()
    asked = arguments.names or names
    if unknown := sorted(set(asked) - set(names)):
        parser.error(f"no stored run named {', '.join(unknown)}; known: {', '.join(names)}")
    if arguments.check:
        found = [problem for name in asked for problem in problems(name)]
        print("\n".join(found) or f"{', '.join(asked)}: as today's code gives them", flush=True)
        raise SystemExit(1 if found else 0)
    for name in asked:
        redo(name)


if __name__ == "__main__":
    main()
