"""L blocks and GPT-2's options: gradients by central differences, and a PyTorch model.

The PyTorch model below is written from ``torch.nn`` layers (``nn.Embedding``, ``nn.LayerNorm``, ``nn.Linear``,
``F.scaled_dot_product_attention``, ``F.gelu``), loaded with the NumPy weights, and differentiated by autograd.
Its tests need ``torch`` (the ``reference`` extra) and are skipped with that reason where it is missing; the
central-difference checks run everywhere.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from transformer_math.block import gelu
from transformer_math.model import backward, forward, init_params, loss_and_grads
from transformer_math.optim import AdamW
from transformer_math.sample import generate
from transformer_math.train import make_windows, train

V, D, D_FF, HEADS = 6, 8, 12, 2
TOKENS = np.array([[0, 3, 1, 5, 2], [4, 4, 1, 0, 2]])
TARGETS = np.array([[3, 1, 5, 2, 0], [4, 1, 0, 2, 3]])
OPTIONS = {  # name -> (init_params options, forward options)
    "one block": ({}, {}),
    "two blocks": ({"n_layers": 2}, {}),
    "gelu": ({"n_layers": 2}, {"activation": "gelu"}),
    "gelu_tanh": ({"n_layers": 2}, {"activation": "gelu_tanh"}),
    "identity (a linear FFN)": ({"n_layers": 2}, {"activation": "identity"}),
    "learned positions": ({"n_layers": 2, "positions": "learned", "n_ctx": 7}, {}),
    "tied": ({"n_layers": 2, "tie_embeddings": True}, {"tie_embeddings": True}),
    "attention only": ({"n_layers": 2, "d_ff": 0}, {}),
    "no LayerNorm": ({"n_layers": 2, "layer_norm": False}, {}),
    "no residual": ({"n_layers": 2}, {"residual": False}),
    "attention only, no LayerNorm, no residual": (
        {"n_layers": 2, "d_ff": 0, "layer_norm": False},
        {"residual": False},
    ),
    "all of them": (
        {"n_layers": 3, "positions": "learned", "n_ctx": 5, "tie_embeddings": True},
        {"activation": "gelu_tanh", "tie_embeddings": True},
    ),
}


def model(name, seed=1, size=(V, D, D_FF)):
    init, options = OPTIONS[name]
    init = {"d_ff": size[2]} | init  # "d_ff": 0 for attention-only blocks
    params = init_params(*size[:2], seed=seed, **init)
    rng = np.random.default_rng(seed)  # gains and biases away from 1 and 0, so that their gradients are tested too
    for key, value in params.items():
        if key.split(".")[-1][:3] in ("ln1", "ln2", "lnf", "b_1", "b_2"):
            value += 0.3 * rng.standard_normal(value.shape)
    return params, options


# --- numerical gradients: every parameter of every option, in float64 -----------------------------------


@pytest.mark.parametrize("name", OPTIONS)
def test_every_gradient_matches_central_differences(name):
    """Along three random directions u of each array: (L(w + hu) - L(w - hu)) / 2h against <grad, u>.

    A wrong entry of the gradient shows in a random direction with probability 1, at 6 forward passes an
    array instead of 2 an entry."""
    params, options = model(name, size=(5, 4, 6))
    tokens, targets = TOKENS[:, :4] % 5, TARGETS[:, :4] % 5
    _, grads = loss_and_grads(params, tokens, targets, n_heads=2, **options)
    assert list(grads) == list(params)
    rng, h = np.random.default_rng(0), 1e-5
    for key, value in params.items():
        for _ in range(3):
            u = rng.standard_normal(value.shape)
            old = value.copy()
            value += h * u
            up = loss_and_grads(params, tokens, targets, n_heads=2, **options)[0]
            value[...] = old - h * u
            down = loss_and_grads(params, tokens, targets, n_heads=2, **options)[0]
            value[...] = old
            numerical, analytic = (up - down) / (2 * h), float(np.sum(grads[key] * u))
            error = abs(numerical - analytic) / (np.linalg.norm(grads[key]) * np.linalg.norm(u))
            assert error < 1e-7, f"{name}: {key} along a random direction, relative error {error:.1e}"


# --- the defaults, the initialisation, the dtype rule and bad input -------------------------------------


def test_defaults_are_the_one_block_model_and_deeper_models_scale_their_residual_projections():
    one = init_params(V, D, D_FF, seed=0)
    assert list(one) == "W_E ln1_g ln1_b W_Q W_K W_V W_O ln2_g ln2_b W_1 b_1 W_2 b_2 lnf_g lnf_b W_U".split()
    scaled = init_params(V, D, D_FF, seed=0, scale_residual=True)  # the same draws, W_O and W_2 times 1/sqrt(2)
    for key in one:
        factor = 1 / math.sqrt(2) if key in ("W_O", "W_2") else 1.0
        np.testing.assert_array_equal(scaled[key], factor * one[key])
    deep = init_params(V, 64, 256, seed=0, n_layers=12)
    assert len(deep) == 1 + 12 * 12 + 3
    for key in ("W_O", "h11.W_O", "W_2", "h5.W_2"):  # std 1/sqrt(fan-in) / sqrt(2L), as GPT-2's c_proj
        fan_in = deep[key].shape[0]
        assert abs(deep[key].std() * math.sqrt(fan_in * 24) - 1) < 0.1
    assert abs(deep["h3.W_Q"].std() * 8 - 1) < 0.1  # the others are not scaled


def test_float32_in_float32_out_through_every_option():
    for name in OPTIONS:
        params, options = model(name)
        params = {k: v.astype(np.float32) for k, v in params.items()}
        loss, grads = loss_and_grads(params, TOKENS, TARGETS, n_heads=HEADS, **options)
        assert type(loss) is float
        assert all(g.dtype == np.float32 for g in grads.values()), name
        assert forward(params, TOKENS, HEADS, **options)[0].dtype == np.float32
    assert gelu(np.ones(2, np.float32), approximate="tanh").dtype == np.float32


def test_bad_input_is_refused_naming_the_argument():
    cases = [
        (lambda: init_params(V, D, D_FF, n_layers=0), ValueError, "n_layers must be at least 1, got 0"),
        (lambda: init_params(V, D, D_FF, n_layers=2.0), TypeError, "n_layers must be an integer"),
        (lambda: init_params(V, D, D_FF, positions="rotary"), ValueError, "positions must be one of"),
        (lambda: init_params(V, D, D_FF, positions="learned"), TypeError, "n_ctx must be an integer"),
        (lambda: init_params(V, D, D_FF, n_ctx=8), ValueError, "n_ctx is the length of learned positions"),
        (lambda: init_params(V, D, D_FF, tie_embeddings=1), TypeError, "tie_embeddings must be True or False"),
        (lambda: init_params(V, D, D_FF, scale_residual="yes"), TypeError, "scale_residual must be"),
        (
            lambda: init_params(V, D, D_FF, tie_embeddings=True, output_scale=0.1),
            ValueError,
            "output_scale must be 1 with tie_embeddings=True",
        ),
        (lambda: forward(init_params(V, D, D_FF, n_layers=2), [0], 3), ValueError, "not divisible by n_heads = 3"),
        (lambda: forward(init_params(V, D, D_FF), [0], 2, activation="gelu2"), ValueError, "activation must be"),
        (lambda: forward(init_params(V, D, D_FF), [0], 2, activation=None), TypeError, "activation must be"),
        (
            lambda: forward(init_params(V, D, D_FF, tie_embeddings=True), [0], 2),
            ValueError,
            r"params lacks params\['W_U'\]; make it with init_params \(or pass tie_embeddings=True\)",
        ),
        (
            lambda: forward(init_params(V, D, D_FF), [0], 2, tie_embeddings=True),
            ValueError,
            "tie_embeddings=True, but params has its own W_U",
        ),
        (
            lambda: forward(init_params(V, D, D_FF, positions="learned", n_ctx=2), [0, 1, 2], 2),
            ValueError,
            r"tokens has 3 positions, more than the 2 of W_P \(n_ctx\)",
        ),
        (
            lambda: generate(init_params(V, D, D_FF, positions="learned", n_ctx=2), [0], 2, 2, context=3),
            ValueError,
            "context = 3 is longer than the n_ctx = 2 positions of W_P",
        ),
        (lambda: gelu([1.0], approximate="erf"), ValueError, "approximate must be one of 'none', 'tanh'"),
        (lambda: gelu([np.inf]), ValueError, "x contains inf"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()
    params = init_params(V, D, D_FF, n_layers=2)
    del params["h1.W_2"]
    with pytest.raises(ValueError, match=r"params lacks params\['h1.W_2'\]; make it with init_params"):
        forward(params, [0], 2)


def test_train_and_generate_run_over_every_option():
    x, y = make_windows([0, 1, 2, 3, 4] * 4, seq_len=5)
    for name in OPTIONS:
        params, options = model(name, size=(5, 8, 16))
        losses = train(params, x, y, n_heads=2, steps=40, lr=0.02, **options)
        if options.get("residual") is False:  # slower without the residual paths; generate has no such option
            assert losses[-1] < losses[0] / 2, name
            continue
        assert losses[-1] < losses[0] / 5, name
        text = generate(params, [0, 1], n_new=6, n_heads=2, context=5, **options)  # the training length
        assert text == [0, 1, 2, 3, 4, 0, 1, 2], name  # learned the cycle


def test_gelu_is_exact_where_it_is_known():
    assert gelu(0.0) == 0.0 and gelu(-40.0) == 0.0 and gelu(40.0) == 40.0
    x = np.linspace(-6, 6, 25)
    phi = np.array([0.5 * (1 + math.erf(t / math.sqrt(2))) for t in x])
    # to the formula's own precision: 1 + erf(x / sqrt 2) cancels for x < 0, where it is off by an ulp of 1
    assert np.all(np.abs(gelu(x) - x * phi) <= 1e-15 * np.abs(x * phi) + np.abs(x) * np.finfo(float).eps)
    assert np.abs(gelu(x, approximate="tanh") - gelu(x)).max() < 5e-4


# --- against PyTorch --------------------------------------------------------------------------------------

WORST: dict[str, float] = {}  # the largest relative error of each comparison, printed by the last test


def relative_error(ours, theirs) -> float:
    """max |ours - theirs| / max |theirs|, over one array."""
    theirs = np.asarray(theirs, dtype=np.float64)
    return float(np.max(np.abs(np.asarray(ours) - theirs)) / max(np.max(np.abs(theirs)), 1e-300))


def torch_model(params, n_heads, activation="relu", tie_embeddings=False, residual=True):
    """A GPT-2-style model of ``torch.nn`` layers with the NumPy weights in it, in float64."""
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (optional: pip install -e .[reference])")
    from torch import nn
    from torch.nn import functional as F

    torch.set_default_dtype(torch.float64)
    d = params["W_E"].shape[1]
    n_layers = 1 + sum(key.endswith(".W_Q") for key in params)
    ffn, ln, skip = "W_1" in params, "lnf_g" in params, 1.0 if residual else 0.0

    def norm():
        return nn.LayerNorm(d, eps=1e-5) if ln else nn.Identity()

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = norm(), norm()
            self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
            if ffn:
                self.fc = nn.Linear(d, params["W_1"].shape[1])
                self.proj = nn.Linear(params["W_1"].shape[1], d)

        def forward(self, x):
            b, n, _ = x.shape
            a = self.ln_1(x)
            q, k, v = (f(a).view(b, n, n_heads, d // n_heads).transpose(1, 2) for f in (self.q, self.k, self.v))
            heads = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = skip * x + self.o(heads.transpose(1, 2).reshape(b, n, d))
            if not ffn:
                return x
            hidden = self.fc(self.ln_2(x))
            if activation == "identity":
                act = hidden
            else:
                act = F.relu(hidden) if activation == "relu" else F.gelu(hidden, approximate=activation[5:] or "none")
            return skip * x + self.proj(act)

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(*params["W_E"].shape)
            self.wpe = nn.Embedding(*params["W_P"].shape) if "W_P" in params else None
            self.h = nn.ModuleList(Block() for _ in range(n_layers))
            self.ln_f = norm()
            self.lm_head = nn.Linear(d, params["W_E"].shape[0], bias=False)
            if tie_embeddings:
                self.lm_head.weight = self.wte.weight  # as GPT-2: one tensor, two uses

        def forward(self, idx):
            n = idx.shape[1]
            if self.wpe is not None:
                pos = self.wpe(torch.arange(n))
            else:  # Vaswani et al.'s sinusoids
                angle = torch.arange(n)[:, None] / 10000 ** (torch.arange(0, d, 2) / d)
                pos = torch.stack([torch.sin(angle), torch.cos(angle)], dim=-1).reshape(n, d)
            x = self.wte(idx) + pos
            for block in self.h:
                x = block(x)
            return self.lm_head(self.ln_f(x))

    gpt = GPT()
    names = {"W_E": gpt.wte.weight} | ({"lnf_g": gpt.ln_f.weight, "lnf_b": gpt.ln_f.bias} if ln else {})
    names = {key: (tensor, False) for key, tensor in names.items()}
    names |= {"W_U": (gpt.lm_head.weight, True)} if not tie_embeddings else {}
    names |= {"W_P": (gpt.wpe.weight, False)} if "W_P" in params else {}
    for layer, block in enumerate(gpt.h):
        p = "" if layer == 0 else f"h{layer}."
        names |= {p + f"W_{x.upper()}": (getattr(block, x).weight, True) for x in "qkvo"}
        if ln:
            names |= {p + "ln1_g": (block.ln_1.weight, False), p + "ln1_b": (block.ln_1.bias, False)}
        if ln and ffn:
            names |= {p + "ln2_g": (block.ln_2.weight, False), p + "ln2_b": (block.ln_2.bias, False)}
        if ffn:
            names |= {p + "W_1": (block.fc.weight, True), p + "b_1": (block.fc.bias, False)}
            names |= {p + "W_2": (block.proj.weight, True), p + "b_2": (block.proj.bias, False)}
    assert sorted(names) == sorted(params)
    with torch.no_grad():
        for key, (tensor, transposed) in names.items():
            tensor.copy_(torch.tensor(params[key].T if transposed else params[key]))
    return torch, gpt, names


@pytest.mark.parametrize("name", OPTIONS)
def test_logits_loss_and_every_gradient_agree_with_pytorch(name):
    params, options = model(name)
    torch, gpt, names = torch_model(params, HEADS, **options)
    logits, cache = forward(params, TOKENS, HEADS, **options)
    loss, grads = loss_and_grads(params, TOKENS, TARGETS, HEADS, **options)

    their_logits = gpt(torch.tensor(TOKENS))
    their_loss = torch.nn.functional.cross_entropy(their_logits.reshape(-1, V), torch.tensor(TARGETS).reshape(-1))
    their_loss.backward()
    errors = {"logits": relative_error(logits, their_logits.detach().numpy())}
    errors["loss"] = abs(loss - their_loss.item()) / abs(their_loss.item())
    for key, (tensor, transposed) in names.items():
        theirs = tensor.grad.numpy()
        errors[key] = relative_error(grads[key], theirs.T if transposed else theirs)
    WORST[f"{name}: logits, loss, gradients"] = max(errors.values())
    assert max(errors.values()) < 1e-12, {k: f"{e:.1e}" for k, e in errors.items() if e >= 1e-12}
    assert backward(params, cache, np.zeros_like(logits))["W_E"].shape == params["W_E"].shape

    # one AdamW step: the change of every parameter, ours against torch.optim.AdamW's
    keys = list(names)
    before = {key: params[key].copy() for key in keys}
    AdamW([params[key] for key in keys], lr=1e-2, weight_decay=0.1).step([grads[key] for key in keys])
    tensors = list(dict.fromkeys(tensor for tensor, _ in names.values()))  # a tied tensor once
    torch.optim.AdamW(tensors, lr=1e-2, weight_decay=0.1).step()
    step_errors = {}
    for key, (tensor, transposed) in names.items():
        theirs = tensor.detach().numpy()
        theirs = theirs.T if transposed else theirs
        step_errors[key] = relative_error(params[key] - before[key], theirs - before[key])
    WORST[f"{name}: one AdamW step"] = max(step_errors.values())
    assert max(step_errors.values()) < 1e-9, {k: f"{e:.1e}" for k, e in step_errors.items() if e >= 1e-9}


def test_gelu_agrees_with_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (optional: pip install -e .[reference])")
    x = np.linspace(-8, 8, 101)
    for approximate in ("none", "tanh"):
        theirs = torch.nn.functional.gelu(torch.tensor(x), approximate=approximate).numpy()
        WORST[f"gelu {approximate}"] = relative_error(gelu(x, approximate=approximate), theirs)
        assert WORST[f"gelu {approximate}"] < 1e-15


def test_zz_report_the_worst_errors(capsys):
    """Not a check: prints the largest relative error of each PyTorch comparison (pytest -s shows it)."""
    if not WORST:
        pytest.skip("PyTorch is not installed (optional: pip install -e .[reference])")
    with capsys.disabled():
        print()
        for key, error in WORST.items():
            print(f"  {key:40s} {error:.1e}")
