"""Each stored run is the run today's code, text and settings would do: its settings are its module's, the text
it trained on hashes as the library's does, and the first 50 steps of its trainings, done again, reproduce its
fingerprint to 1e-6. A change that moves the numbers fails here until `python -m tools.stored_runs NAME` redoes
the run.

The fingerprint is taken in float64, also for a run that trains in float32: two machines whose BLAS sums in a
different order give float32 losses 1e-4 apart after 50 steps (measured with OpenBLAS's Haswell and SkylakeX
kernels), float64 losses within 1e-15."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from tools import stored_runs
from transformer_math.data import RUNS, load_run, load_text

REGISTRY = stored_runs.registered()


def test_every_stored_run_has_its_code_and_every_registered_run_is_stored():
    assert sorted(REGISTRY) == sorted(RUNS)


@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_stored_run_is_what_todays_code_gives(name):
    stored = load_run(name)
    text = load_text(stored["text"])
    assert stored["data_sha256"] == hashlib.sha256(text.encode("utf-8")).hexdigest(), "the text has changed"
    assert stored["settings"] == json.loads(json.dumps(REGISTRY[name].settings())), "the settings have changed"
    replayed = REGISTRY[name].replay(stored_runs.FINGERPRINT_STEPS)
    assert replayed.shape == stored["fingerprint"].shape
    np.testing.assert_allclose(replayed, stored["fingerprint"], rtol=1e-6, atol=0)


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
