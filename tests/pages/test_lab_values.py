"""The numbers a lab checks against are the library's: every written-in ``EXPECTED_*`` array, recomputed.

A lab that teaches the model's parts does not import the library: its checks compare the learner's NumPy
with arrays the library computed beforehand, written into the notebook. Nothing else would notice if the
library, or the lab's parameters, changed and the arrays went stale. This runs the lab's cells up to its
first exercise (the given functions, the parameters and the expected arrays) in this process, no kernel
needed, and recomputes each array with the library.

To write the arrays into a lab after a change, print them and paste them over the old ones:
``python tests/pages/test_lab_values.py depth-rmsnorm-rope`` (then ``ruff format`` the lab).
"""

from __future__ import annotations

import contextlib
import functools
import io
import sys
from pathlib import Path

import jupytext
import numpy as np
import pytest

from tools.labs import exercises
from transformer_math.attention import (
    causal_mask,
    merge_heads,
    multi_head_attention,
    positional_encoding,
    scaled_dot_product_attention,
    split_heads,
)
from transformer_math.block import BLOCK_NAMES, LN_EPS, activate, n_layers_of, prefix
from transformer_math.information import cross_entropy_from_logits
from transformer_math.model import forward
from transformer_math.modern import apply_rope, rms_norm
from transformer_math.stats import layer_norm

LABS = Path(__file__).resolve().parents[2] / "docs" / "labs"
N_HEADS = 2  # both labs' head count


@functools.cache
def given(lab: str) -> dict:
    """The names the lab's cells above its first exercise define: its parameters, inputs and expected arrays."""
    notebook = jupytext.read(LABS / f"{lab}.py")
    namespace: dict = {"__name__": "__lab__"}
    with contextlib.redirect_stdout(io.StringIO()):  # what the cells print
        for cell in notebook.cells[: exercises(notebook)[0]]:
            if cell.cell_type == "code":
                exec(compile(cell.source, str(LABS / f"{lab}.py"), "exec"), namespace)
    return namespace


def ffn(c, P):
    """The guide's feed-forward layer, from the library's activation."""
    return activate(c @ P["W_1"] + P["b_1"], "relu")[0] @ P["W_2"] + P["b_2"]


def transformer_block(lab: dict) -> dict:
    """The Transformer block lab: its LayerNorm, attention and feed-forward on LN_1(X_0), and the logits."""
    p, tokens = lab["params"], lab["tokens"]
    a = layer_norm(p["W_E"][tokens] + positional_encoding(len(tokens), p["W_E"].shape[1]), p["ln1_g"], p["ln1_b"])
    return {
        "EXPECTED_A": a,
        "EXPECTED_ATTENTION": multi_head_attention(
            a, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], N_HEADS, mask=causal_mask(len(a))
        )[0],
        "EXPECTED_FFN": ffn(a, p),
        "EXPECTED_LOGITS": forward(p, tokens, N_HEADS)[0],
        "EXPECTED_LOGITS_2": forward(p, [0, 4, 0, 1, 2], N_HEADS)[0],
    }


def modern_block(x, P, n_heads, positions=None):
    """The depth lab's block from the library's parts: RMSNorm before each sub-layer (the gains ``ln1_g`` and
    ``ln2_g``, no shift), RoPE on each head's queries and keys when ``positions`` are given, the ReLU
    feed-forward of the guide's model."""
    a = rms_norm(x, P["ln1_g"])
    q, k, v = (split_heads(a @ P[w], n_heads) for w in ("W_Q", "W_K", "W_V"))  # (h, n, d_head)
    if positions is not None:
        q, k = apply_rope(q, positions), apply_rope(k, positions)  # d_head wide: the frequencies of a head
    heads, _ = scaled_dot_product_attention(q, k, v, causal_mask(len(x)))
    x = x + merge_heads(heads) @ P["W_O"]
    return x + ffn(rms_norm(x, P["ln2_g"]), P)


def stream_sizes(p, tokens):
    """The root mean square of the library's stream X^(0), ..., X^(L) (the cache's x0 and each block's x2)."""
    _, cache = forward(p, tokens, N_HEADS)
    streams = [cache["x0"]] + [cache[prefix(layer) + "x2"] for layer in range(n_layers_of(p))]
    return np.array([np.sqrt(np.mean(x**2)) for x in streams])


def lens_losses(p, windows, targets):
    """The mean cross entropy of LN_f(X^(l)) W_U, l = 1, ..., L, over the windows: the logit lens of the library's
    stream, scored by the library's cross entropy."""
    _, cache = forward(p, windows, N_HEADS)
    return np.array(
        [
            cross_entropy_from_logits(
                layer_norm(cache[prefix(layer) + "x2"], p["lnf_g"], p["lnf_b"]) @ p["W_U"], targets
            )
            for layer in range(n_layers_of(p))
        ]
    )


def depth_rmsnorm_rope(lab: dict) -> dict:
    """The depth lab: the library's two-block forward pass and logit lens, RMSNorm, RoPE and their block."""
    p, tokens = lab["params"], lab["tokens"]
    logits, _ = forward(p, tokens, N_HEADS)
    one_block = {name: value for name, value in p.items() if not name.startswith("h1.")}
    x0 = p["W_E"][tokens] + positional_encoding(len(tokens), p["W_E"].shape[1])
    block_1 = {name: p["h1." + name] for name in BLOCK_NAMES}
    query, key, n = lab["query"], lab["key"], 5
    return {
        "EXPECTED_LOGITS": logits,
        "EXPECTED_LOGITS_ONE_BLOCK": forward(one_block, tokens, N_HEADS)[0],
        "EXPECTED_SIZES": stream_sizes(p, tokens),
        "EXPECTED_SIZES_DEEP": stream_sizes(lab["deep"], tokens),
        "EXPECTED_SIZES_SCALED": stream_sizes(lab["deep_scaled"], tokens),
        "EXPECTED_LENS_TRAINED": lens_losses(lab["trained"], lab["lens_windows"], lab["lens_targets"]),
        "EXPECTED_RMS": rms_norm(x0, p["ln1_g"]),
        "EXPECTED_LN": layer_norm(x0, p["ln1_g"], np.zeros(8)),
        "EXPECTED_LN_EPS": layer_norm(x0[1] / 10, p["ln1_g"], np.zeros(8), eps=0.01),
        "EXPECTED_RMS_EPS": rms_norm(x0[1] / 10, p["ln1_g"], eps=0.01),
        "EXPECTED_RMS_BLOCK": modern_block(x0, block_1, N_HEADS),
        "EXPECTED_ROPE": apply_rope(lab["qk"][0], np.arange(4)),
        "EXPECTED_ROPE_2": apply_rope(lab["qk"], [3, 7, 11, 20], base=100.0),
        "EXPECTED_SCORES": apply_rope(np.tile(query, (n, 1))) @ apply_rope(np.tile(key, (n, 1))).T,
        "EXPECTED_ROPE_BLOCK": modern_block(p["W_E"][tokens], block_1, N_HEADS, np.arange(4)),
        "EXPECTED_ROPE_BLOCK_SPREAD": modern_block(p["W_E"][tokens], block_1, N_HEADS, np.arange(0, 8, 2)),
    }


VALUES = {"transformer-block": transformer_block, "depth-rmsnorm-rope": depth_rmsnorm_rope}


@pytest.mark.parametrize("lab", sorted(VALUES))
def test_a_labs_expected_arrays_are_what_the_library_computes(lab):
    namespace = given(lab)
    library = VALUES[lab](namespace)
    written = sorted(name for name in namespace if name.startswith("EXPECTED_"))
    assert written == sorted(library), f"{lab}: recompute every written-in array here, and only those"
    for name, value in library.items():
        np.testing.assert_allclose(namespace[name], value, rtol=0, atol=1e-8, err_msg=f"{lab}: {name} is stale")


def test_the_depth_labs_model_is_the_librarys():
    """Its positional encoding and parameter names are the library's, its model is forward's of two blocks, and
    the logit-lens check's first reading, the output of block 0 alone, is the library's stream after block 0."""
    lab = given("depth-rmsnorm-rope")
    p, tokens = lab["params"], lab["tokens"]
    np.testing.assert_allclose(lab["X0"], p["W_E"][tokens] + positional_encoding(len(tokens), 8), rtol=0, atol=1e-15)
    assert lab["BLOCK_NAMES"] == list(BLOCK_NAMES)
    _, cache = forward(p, tokens, N_HEADS)
    assert "h1.x2" in cache and "h2.x2" not in cache  # two blocks
    after_block_0 = layer_norm(cache["x2"], p["lnf_g"], p["lnf_b"], eps=LN_EPS) @ p["W_U"]
    np.testing.assert_allclose(lab["EXPECTED_LOGITS_ONE_BLOCK"], after_block_0, rtol=0, atol=1e-8)


def as_source(name: str, array: np.ndarray) -> str:
    """``NAME = np.array([...])`` with 8 decimals, as the labs write their expected arrays."""

    def rows(a):
        if a.ndim == 1:
            return "[" + ", ".join(f"{v:.8f}" for v in a) + "]"
        return "[" + ", ".join(rows(sub) for sub in a) + "]"

    return f"{name} = np.array({rows(np.asarray(array))})"


if __name__ == "__main__":
    for lab_name in sys.argv[1:] or sorted(VALUES):
        print(f"# {lab_name}")
        for array_name, array in VALUES[lab_name](given(lab_name)).items():
            print(as_source(array_name, array))
