"""The library against PyTorch, on the seeded inputs of tests/library/data/make_pytorch_reference.py.

Every comparison runs twice: against the values stored in tests/library/data/pytorch_reference.json (always, so
CI needs no PyTorch), and against PyTorch itself, computed afresh, where ``torch`` can be imported (the
optional ``reference`` extra; skipped with its reason otherwise). All values are float64.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from transformer_math.attention import scaled_dot_product_attention
from transformer_math.autograd import Value
from transformer_math.information import cross_entropy, cross_entropy_from_logits, entropy, kl_divergence
from transformer_math.optim import SGD, Adam, AdamW
from transformer_math.schedules import clip_grad_norm
from transformer_math.softmax import log_softmax, logsumexp, softmax
from transformer_math.stats import layer_norm, mean, std, variance
from transformer_math.train import train
from transformer_math.transformer import init_params, loss_and_grads

DATA = Path(__file__).resolve().parent / "data"
STORED = json.loads((DATA / "pytorch_reference.json").read_text())
NOT_ARRAYS = ("transformer", "scalars", "clip_grads", "clip_max_norms", "train")
INPUTS = {key: np.array(value) for key, value in STORED["inputs"].items() if key not in NOT_ARRAYS}


def _live_reference() -> dict:
    pytest.importorskip("torch", reason="PyTorch is not installed (optional: pip install -e .[reference])")
    spec = importlib.util.spec_from_file_location("make_pytorch_reference", DATA / "make_pytorch_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.reference(STORED["inputs"])


@pytest.fixture(scope="module", params=["stored", "live"])
def torch_values(request) -> dict:
    return STORED["pytorch"] if request.param == "stored" else _live_reference()


def close(ours, theirs, rtol=1e-12, atol=1e-15):
    np.testing.assert_allclose(np.asarray(ours, dtype=float), np.array(theirs, dtype=float), rtol=rtol, atol=atol)


def test_the_stored_file_is_what_the_script_computes_from_its_inputs():
    """The inputs in the JSON file are the ones the script draws, so regenerating it changes nothing else."""
    spec = importlib.util.spec_from_file_location("make_pytorch_reference", DATA / "make_pytorch_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert json.loads(json.dumps(module.inputs())) == STORED["inputs"]


def test_softmax_family(torch_values):
    x = INPUTS["logits"]  # holds -inf (masked) entries
    close(softmax(x), torch_values["softmax_last"])
    close(softmax(x, axis=0), torch_values["softmax_first"])
    close(log_softmax(x), torch_values["log_softmax_last"])
    close(logsumexp(x), torch_values["logsumexp_last"])
    close(logsumexp(x, axis=0), torch_values["logsumexp_first"])
    close(logsumexp(np.zeros((2, 0))), torch_values["logsumexp_empty"])  # -inf, the log of an empty sum


def test_losses(torch_values):
    p, q = INPUTS["p"], INPUTS["q"]
    close(cross_entropy_from_logits(INPUTS["lm_logits"], INPUTS["lm_targets"]), torch_values["cross_entropy_logits"])
    close(cross_entropy(p, q), torch_values["cross_entropy_probs"])
    close(entropy(p), torch_values["entropy"])
    close(kl_divergence(p, q), torch_values["kl"])


def test_statistics_and_layer_norm(torch_values):
    x = INPUTS["ln_x"]
    close(mean(x), torch_values["mean"])
    close(variance(x, axis=-1), torch_values["var_biased_last"])  # LayerNorm's variance: ddof = 0
    close(variance(x, ddof=1), torch_values["var_unbiased_all"])  # torch.var's default: ddof = 1
    close(std(x, axis=0), torch_values["std_biased_first"])
    close(layer_norm(x, INPUTS["ln_gamma"], INPUTS["ln_beta"]), torch_values["layer_norm"], rtol=1e-10)


def test_attention_with_and_without_a_boolean_mask(torch_values):
    q, k, v = INPUTS["q_att"], INPUTS["k_att"], INPUTS["v_att"]
    out, weights = scaled_dot_product_attention(q, k, v)
    close(weights, torch_values["attention_weights"])
    close(out, torch_values["attention_output"])
    out, weights = scaled_dot_product_attention(q, k, v, mask=INPUTS["mask"].astype(bool))  # True = may attend
    close(weights, torch_values["attention_weights_masked"])
    close(out, torch_values["attention_output_masked"])


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("sgd_momentum", lambda ps: SGD(ps, lr=0.1, momentum=0.9)),
        ("adam", lambda ps: Adam(ps, lr=0.1)),
        ("adamw", lambda ps: AdamW(ps, lr=0.1, weight_decay=0.1)),
    ],
)
def test_optimizers_follow_pytorch_step_by_step(torch_values, name, make):
    w = INPUTS["w0"].copy()
    opt = make([w])
    for step, g in enumerate(INPUTS["grads"]):
        opt.step([g])
        close(w, torch_values[name][step])


def test_value_backward_matches_torch_autograd(torch_values):
    a, b = (Value(s) for s in STORED["inputs"]["scalars"])
    expr = (a * b + a**3).tanh() + b.exp() / (1 + a**2) + (a - b).relu()
    expr.backward()
    expected = torch_values["autograd"]
    close([expr.data, a.grad, b.grad], [expected["value"], expected["grad_a"], expected["grad_b"]])


def test_tiny_transformer_gradients_match_torch_autograd(torch_values):
    spec = STORED["inputs"]["transformer"]
    params = init_params(spec["vocab_size"], spec["d_model"], spec["d_ff"], seed=spec["seed"])
    loss, grads = loss_and_grads(params, np.array(spec["tokens"]), np.array(spec["targets"]), n_heads=spec["n_heads"])
    expected = torch_values["transformer"]
    close(loss, expected["loss"])
    assert sorted(grads) == sorted(expected["grads"])
    for name, grad in grads.items():
        close(grad, expected["grads"][name], rtol=1e-11, atol=1e-14)


def test_clip_grad_norm_scales_as_torch_by_max_norm_over_norm_plus_1e_6(torch_values):
    """Above the norm nothing changes; at the norm and below it every gradient is scaled by c / (norm + 1e-6)."""
    grads = [np.array(g) for g in STORED["inputs"]["clip_grads"]]
    for max_norm, expected in zip(STORED["inputs"]["clip_max_norms"], torch_values["clip"], strict=True):
        clipped, norm = clip_grad_norm(grads, max_norm)
        close(norm, expected["norm"])
        for ours, theirs in zip(clipped, expected["grads"], strict=True):
            close(ours, theirs)


def test_train_takes_nanogpts_steps_clipped_with_decay_on_matrices_only(torch_values):
    """`train` against PyTorch's clip_grad_norm_ and AdamW with two parameter groups (weight decay on the
    tensors of two or more dimensions, none on biases and LayerNorm gains), as nanoGPT's configure_optimizers."""
    spec, options = STORED["inputs"]["transformer"], STORED["inputs"]["train"]
    params = init_params(spec["vocab_size"], spec["d_model"], spec["d_ff"], seed=spec["seed"])
    losses = train(params, np.array(spec["tokens"]), np.array(spec["targets"]), n_heads=spec["n_heads"], **options)
    expected = torch_values["train"]
    assert min(expected["norms"]) > options["max_grad_norm"]  # clipping acts at every step
    close(losses, expected["losses"], rtol=1e-11)
    assert sorted(params) == sorted(expected["params"])
    for name, value in params.items():
        close(value, expected["params"][name], rtol=1e-10, atol=1e-13)
