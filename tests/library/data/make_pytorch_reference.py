"""Compute PyTorch's values for fixed, seeded inputs and store them in pytorch_reference.json beside this file.

PyTorch is not a dependency of the guide: tests/library/test_pytorch_reference.py compares the library with the
stored file on every run, and with PyTorch itself (through :func:`reference`) where ``torch`` is importable.
To regenerate the file, in an environment with CPU PyTorch and NumPy (``pip install -e .[reference]``)::

    python tests/library/data/make_pytorch_reference.py

Everything runs in float64 on the CPU. The inputs are drawn here with ``np.random.default_rng(0)`` and
stored with the outputs, so the tests need neither this script nor PyTorch to read them.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "pytorch_reference.json"
sys.path.insert(0, str(HERE.parent.parent / "src"))  # the tiny Transformer's parameters come from the library

STEPS = 5  # optimizer steps compared
NOT_ARRAYS = ("transformer", "scalars", "clip_grads", "clip_max_norms", "train")  # the inputs that are no one array


def inputs() -> dict:
    """The seeded inputs every comparison uses, as plain lists (JSON-ready)."""
    rng = np.random.default_rng(0)
    logits = rng.normal(scale=3.0, size=(4, 6))
    logits[1, [0, 4]] = -np.inf  # masked positions
    p = rng.dirichlet(np.ones(5), size=3)
    q = rng.dirichlet(np.ones(5), size=3)
    p[0, 2] = 0.0  # an outcome P calls impossible: its term counts 0
    p[0] /= p[0].sum()
    lm_logits = rng.normal(scale=2.0, size=(2, 3, 7))
    lm_targets = rng.integers(0, 7, size=(2, 3))
    ln_x = rng.normal(loc=1.0, scale=4.0, size=(2, 3, 8))
    ln_gamma, ln_beta = rng.normal(size=8), rng.normal(size=8)
    q_att, k_att, v_att = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 5, 2))
    mask = rng.random((2, 4, 5)) < 0.6
    mask[:, :, 0] = True  # every query may attend to at least one key
    w0 = rng.normal(size=(3, 2))
    grads = rng.normal(size=(STEPS, 3, 2))
    a, b = float(rng.normal()), float(rng.normal())
    clip_grads = [rng.normal(size=(3, 2)), rng.normal(size=4)]
    clip_norm = float(np.sqrt(sum(np.sum(g**2) for g in clip_grads)))
    return {
        "logits": logits.tolist(),
        "p": p.tolist(),
        "q": q.tolist(),
        "lm_logits": lm_logits.tolist(),
        "lm_targets": lm_targets.tolist(),
        "ln_x": ln_x.tolist(),
        "ln_gamma": ln_gamma.tolist(),
        "ln_beta": ln_beta.tolist(),
        "q_att": q_att.tolist(),
        "k_att": k_att.tolist(),
        "v_att": v_att.tolist(),
        "mask": mask.tolist(),
        "w0": w0.tolist(),
        "grads": grads.tolist(),
        "scalars": [a, b],
        "clip_grads": [g.tolist() for g in clip_grads],
        "clip_max_norms": [10.0, clip_norm, 0.5],  # above the norm, equal to it (PyTorch still scales), below
        "transformer": {
            "vocab_size": 7,
            "d_model": 8,
            "d_ff": 16,
            "seed": 3,
            "n_heads": 2,
            "tokens": [[0, 3, 5, 1], [6, 2, 2, 4]],
            "targets": [[3, 5, 1, 6], [2, 2, 4, 0]],
        },
        "train": {"steps": 3, "lr": 0.1, "weight_decay": 0.5, "max_grad_norm": 0.5},  # the same model, trained
    }


def _tiny_transformer_params(torch, spec: dict) -> dict:
    """The library's initial parameters of the one-block model, as float64 tensors that record gradients."""
    from transformer_math.transformer import init_params

    return {
        name: torch.tensor(value, requires_grad=True)
        for name, value in init_params(spec["vocab_size"], spec["d_model"], spec["d_ff"], seed=spec["seed"]).items()
    }


def _tiny_transformer_loss(torch, P: dict, spec: dict):
    """The mean cross entropy of the library's one-block model with parameters ``P``, in PyTorch."""
    from transformer_math.attention import positional_encoding
    from transformer_math.transformer import LN_EPS

    F = torch.nn.functional
    tokens = torch.tensor(spec["tokens"])
    targets = torch.tensor(spec["targets"])
    n, d, h = tokens.shape[-1], spec["d_model"], spec["n_heads"]

    def ln(x, g, b):
        return F.layer_norm(x, (d,), g, b, eps=LN_EPS)

    def heads(x):  # (batch, n, d) -> (batch, h, n, d / h)
        return x.reshape(*x.shape[:-1], h, d // h).transpose(-3, -2)

    x0 = P["W_E"][tokens] + torch.tensor(positional_encoding(n, d))
    a = ln(x0, P["ln1_g"], P["ln1_b"])
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    o = F.scaled_dot_product_attention(heads(a @ P["W_Q"]), heads(a @ P["W_K"]), heads(a @ P["W_V"]), attn_mask=causal)
    x1 = x0 + o.transpose(-3, -2).reshape(*x0.shape) @ P["W_O"]
    u = ln(x1, P["ln2_g"], P["ln2_b"]) @ P["W_1"] + P["b_1"]
    x2 = x1 + torch.relu(u) @ P["W_2"] + P["b_2"]
    logits = ln(x2, P["lnf_g"], P["lnf_b"]) @ P["W_U"]
    return F.cross_entropy(logits.reshape(-1, spec["vocab_size"]), targets.reshape(-1))


def _tiny_transformer_grads(torch, spec: dict) -> dict:
    """The loss and every parameter's gradient of the library's one-block model, through torch.autograd."""
    params = _tiny_transformer_params(torch, spec)
    loss = _tiny_transformer_loss(torch, params, spec)
    loss.backward()
    return {"loss": loss.item(), "grads": {name: p.grad.tolist() for name, p in params.items()}}


def _tiny_transformer_training(torch, spec: dict, options: dict) -> dict:
    """nanoGPT's training step on the one-block model: clip_grad_norm_, then AdamW with two parameter groups,
    weight decay on the tensors of two or more dimensions only. The losses and the parameters after."""
    params = _tiny_transformer_params(torch, spec)
    groups = [
        {"params": [p for p in params.values() if p.dim() >= 2], "weight_decay": options["weight_decay"]},
        {"params": [p for p in params.values() if p.dim() < 2], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=options["lr"])
    losses, norms = [], []
    for _ in range(options["steps"]):
        optimizer.zero_grad()
        loss = _tiny_transformer_loss(torch, params, spec)
        loss.backward()
        norms.append(torch.nn.utils.clip_grad_norm_(list(params.values()), options["max_grad_norm"]).item())
        optimizer.step()
        losses.append(loss.item())
    return {"losses": losses, "norms": norms, "params": {name: p.tolist() for name, p in params.items()}}


def _clipped(torch, grads: list, max_norm: float) -> dict:
    """``torch.nn.utils.clip_grad_norm_`` on tensors holding ``grads``: the norm before and the clipped grads."""
    tensors = [torch.zeros(np.shape(g), requires_grad=True) for g in grads]
    for t, g in zip(tensors, grads):
        t.grad = torch.tensor(g)
    norm = torch.nn.utils.clip_grad_norm_(tensors, max_norm)
    return {"norm": norm.item(), "grads": [t.grad.tolist() for t in tensors]}


def _optimizer_path(torch, make, w0, grads) -> list:
    """The parameter after each of the steps, with the given gradients fed in by hand."""
    w = torch.tensor(w0, requires_grad=True)
    opt = make([w])
    path = []
    for g in grads:
        w.grad = torch.tensor(g)
        opt.step()
        path.append(w.detach().clone().tolist())
    return path


def reference(data: dict | None = None) -> dict:
    """PyTorch's values for :func:`inputs` (or the given inputs), in float64."""
    import torch

    torch.set_default_dtype(torch.float64)
    F = torch.nn.functional
    data = inputs() if data is None else data
    t = {key: torch.tensor(value) for key, value in data.items() if key not in NOT_ARRAYS}
    logits, p, q = t["logits"], t["p"], t["q"]

    a, b = (torch.tensor(v, requires_grad=True) for v in data["scalars"])
    expr = torch.tanh(a * b + a**3) + torch.exp(b) / (1 + a**2) + torch.relu(a - b)
    expr.backward()

    def weights_and_output(mask):
        out = F.scaled_dot_product_attention(t["q_att"], t["k_att"], t["v_att"], attn_mask=mask)
        scores = t["q_att"] @ t["k_att"].transpose(-1, -2) / math.sqrt(t["q_att"].shape[-1])
        if mask is not None:
            scores = scores.masked_fill(~mask, -math.inf)
        return torch.softmax(scores, dim=-1).tolist(), out.tolist()

    w_plain, out_plain = weights_and_output(None)
    w_masked, out_masked = weights_and_output(t["mask"])
    lr = 0.1
    return {
        "torch_version": torch.__version__,
        "softmax_last": torch.softmax(logits, dim=-1).tolist(),
        "softmax_first": torch.softmax(logits, dim=0).tolist(),
        "log_softmax_last": torch.log_softmax(logits, dim=-1).tolist(),
        "logsumexp_last": torch.logsumexp(logits, dim=-1).tolist(),
        "logsumexp_first": torch.logsumexp(logits, dim=0).tolist(),
        "logsumexp_empty": torch.logsumexp(torch.zeros(2, 0), dim=-1).tolist(),
        "cross_entropy_logits": F.cross_entropy(t["lm_logits"].reshape(-1, 7), t["lm_targets"].reshape(-1)).item(),
        "cross_entropy_probs": F.cross_entropy(q.log(), p).item(),  # probability targets, log q as the "logits"
        "entropy": torch.distributions.Categorical(probs=p).entropy().tolist(),
        "kl": F.kl_div(q.log(), p, reduction="none").sum(dim=-1).tolist(),
        "mean": t["ln_x"].mean().item(),
        "var_biased_last": t["ln_x"].var(dim=-1, correction=0).tolist(),
        "var_unbiased_all": t["ln_x"].var().item(),  # PyTorch's default divides by n - 1
        "std_biased_first": t["ln_x"].std(dim=0, correction=0).tolist(),
        "layer_norm": F.layer_norm(t["ln_x"], (8,), t["ln_gamma"], t["ln_beta"], eps=1e-5).tolist(),
        "attention_weights": w_plain,
        "attention_output": out_plain,
        "attention_weights_masked": w_masked,
        "attention_output_masked": out_masked,
        "sgd_momentum": _optimizer_path(
            torch, lambda ps: torch.optim.SGD(ps, lr=lr, momentum=0.9), t["w0"].tolist(), t["grads"].tolist()
        ),
        "adam": _optimizer_path(torch, lambda ps: torch.optim.Adam(ps, lr=lr), t["w0"].tolist(), t["grads"].tolist()),
        "adamw": _optimizer_path(
            torch, lambda ps: torch.optim.AdamW(ps, lr=lr, weight_decay=0.1), t["w0"].tolist(), t["grads"].tolist()
        ),
        "autograd": {"value": expr.item(), "grad_a": a.grad.item(), "grad_b": b.grad.item()},
        "transformer": _tiny_transformer_grads(torch, data["transformer"]),
        "train": _tiny_transformer_training(torch, data["transformer"], data["train"]),
        "clip": [_clipped(torch, data["clip_grads"], c) for c in data["clip_max_norms"]],
    }


def main() -> None:
    data = inputs()
    record = {"inputs": data, "pytorch": reference(data)}
    OUT.write_text(json.dumps(record, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size / 1024:.1f} KiB), torch {record['pytorch']['torch_version']}")


if __name__ == "__main__":
    main()
