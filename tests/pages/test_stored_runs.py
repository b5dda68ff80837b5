"""Each stored run is the run today's code, text and settings would do: its settings are its module's, the text
it trained on hashes as the library's does, and the first 50 steps of its trainings, done again, reproduce its
fingerprint to 1e-6. A change that moves the numbers fails here until `python -m tools.stored_runs NAME` redoes
the run.

The fingerprint is taken in float64, also for a run that trains in float32: two machines whose BLAS sums in a
different order give float32 losses 1e-4 apart after 50 steps (measured with OpenBLAS's Haswell and SkylakeX
kernels), float64 losses within 1e-15."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tools import stored_runs
from transformer_math.data import RUNS, load_run

ROOT = Path(__file__).resolve().parents[2]

REGISTRY = stored_runs.registered()


def test_every_stored_run_has_its_code_and_every_registered_run_is_stored():
    assert sorted(REGISTRY) == sorted(RUNS)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_stored_run_is_what_todays_code_gives(name):
    """Checked as `python -m tools.stored_runs --check NAME` checks it: in a process of one BLAS thread, as the
    run was made (a second thread only spins on these small matrices)."""
    result = subprocess.run(
        [sys.executable, "-m", "tools.stored_runs", "--check", name], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_check_names_what_changed(monkeypatch):
    """A stored run whose text, settings or first losses differ from today's is reported, each by name; one
    within 1e-6 passes. (The replay is the stored fingerprint itself here, to test the comparison alone.)"""
    stored = load_run("ladder")
    fast = replace(REGISTRY["ladder"], replay=lambda steps: stored["fingerprint"])
    monkeypatch.setattr(stored_runs, "registered", lambda: {"ladder": fast})

    def check(**changes):
        monkeypatch.setattr("transformer_math.data.load_run", lambda name: {**stored, **changes})
        return stored_runs.problems("ladder")

    assert check() == [] and check(fingerprint=stored["fingerprint"] * (1 + 5e-7)) == []
    found = check(
        data_sha256="0" * 64,
        settings={**stored["settings"], "steps": 1},
        fingerprint=stored["fingerprint"] * (1 + 1e-5),
    )
    assert [problem.split(": ")[1][:12] for problem in found] == ["the text 'sh", "the settings", "the first 50"]
    assert "relative difference 1.0e-05" in found[2]


def test_the_npz_keeps_arrays_settings_and_float16_weights(tmp_path, monkeypatch):
    """What the script writes is what load_run reads back: arrays as arrays, the rest through JSON, weights as
    float16."""
    import transformer_math.data as data

    result = {"settings": {"steps": 3, "sizes": [1, 2]}, "text": "aesop", "curve": np.arange(3.0)}
    result["params"] = {"W_E": np.ones((2, 2)), "h1.W_Q": np.full(3, 0.1)}
    (tmp_path / "demo.npz").write_bytes(stored_runs.to_npz(result))
    monkeypatch.setattr(data, "RUNS", ("demo",))
    monkeypatch.setattr(data.resources, "files", lambda package: tmp_path)
    run = data.load_run("demo")
    assert run["settings"] == {"steps": 3, "sizes": [1, 2]} and run["text"] == "aesop"
    np.testing.assert_array_equal(run["curve"], [0.0, 1.0, 2.0])
    assert run["params"]["h1.W_Q"].dtype == np.float16 and run["params"]["W_E"].shape == (2, 2)
