#!/usr/bin/env python3
"""One training step of the same model in the library and in PyTorch on CPU, side by side, and their ratio.

    PYTHONPATH=src /path/to/python-with-torch benchmarks/bench_training_step.py [--repeat 7] [--steps 5]

The model is nanoGPT's, as ``init_params`` makes it: pre-LN blocks, exact GELU, learned positions, tied
embeddings, LayerNorm and feed-forward biases, no attention biases, d_ff = 4d, a vocabulary of 65 characters
(Shakespeare's). One step is what ``train`` does for each step, as nanoGPT's loop does it: forward, cross
entropy, backward, the gradients clipped to norm 1, one AdamW update (weight decay 0.1). Both run in float32 on
one thread (``torch.set_num_threads(1)``; OpenBLAS, MKL and OpenMP told so before NumPy is imported), on the
same batch of 32 windows, from the same initial weights; the PyTorch model uses what nanoGPT does on a CPU
(one ``c_attn`` matrix for q, k, v, ``F.scaled_dot_product_attention(is_causal=True)``, ``torch.optim.AdamW``).

Before timing, the script checks the two are the same model: the first loss and every gradient agree to
float32's precision. Then, ``--repeat`` times, each size is timed in both (the order alternating), as
``--steps`` steps of ``train`` against the same number of PyTorch steps, in CPU time of this process; the
printed figure is the median per step, and the ratio library / PyTorch (the budget is 1.5). The machine's load
is printed beside them: on a shared machine compare ratios of one run, not times of different runs.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # before NumPy loads its BLAS
    os.environ[_var] = "1"

import argparse  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from statistics import median  # noqa: E402

import numpy as np  # noqa: E402

from transformer_math.model import init_params, loss_and_grads  # noqa: E402
from transformer_math.train import train  # noqa: E402

try:
    import torch
    import torch.nn.functional as F  # noqa: N812
except ImportError:
    torch = None

BUDGET = 1.5  # the project's budget: a training step at most 1.5 times PyTorch's on CPU
VOCAB, BATCH, LR, WEIGHT_DECAY, CLIP = 65, 32, 1e-3, 0.1, 1.0
SIZES = [  # (d_model, context, n_layers, n_heads)
    (32, 32, 2, 2),
    (64, 32, 2, 4),
    (128, 64, 4, 4),
]


def library_params(d, ctx, n_layers):
    params = init_params(
        VOCAB, d, 4 * d, seed=0, n_layers=n_layers, positions="learned", n_ctx=ctx, tie_embeddings=True
    )
    return {name: p.astype(np.float32) for name, p in params.items()}


class TorchGPT(torch.nn.Module if torch else object):
    """The library's model in PyTorch, from the library's own arrays (as nanoGPT's ``GPT``, dropout 0)."""

    def __init__(self, params, n_layers, n_heads):
        super().__init__()
        t = lambda name: torch.nn.Parameter(torch.tensor(params[name]))  # noqa: E731
        self.n_heads, self.wte, self.wpe = n_heads, t("W_E"), t("W_P")
        self.lnf_g, self.lnf_b = t("lnf_g"), t("lnf_b")
        self.blocks = torch.nn.ModuleList()
        for layer in range(n_layers):
            p = "" if layer == 0 else f"h{layer}."
            block = torch.nn.Module()
            qkv = np.concatenate([params[p + "W_Q"], params[p + "W_K"], params[p + "W_V"]], axis=1)
            block.c_attn = torch.nn.Parameter(torch.tensor(qkv.T.copy()))  # as nn.Linear stores it: (out, in)
            for name in ("ln1_g", "ln1_b", "W_O", "ln2_g", "ln2_b", "W_1", "b_1", "W_2", "b_2"):
                value = params[p + name]
                setattr(block, name, torch.nn.Parameter(torch.tensor(value.T.copy() if value.ndim == 2 else value)))
            self.blocks.append(block)

    def forward(self, idx):
        b, n = idx.shape
        d = self.wte.shape[1]
        x = self.wte[idx] + self.wpe[:n]
        for blk in self.blocks:
            a = F.layer_norm(x, (d,), blk.ln1_g, blk.ln1_b, eps=1e-5)
            q, k, v = F.linear(a, blk.c_attn).split(d, dim=2)
            q, k, v = (z.view(b, n, self.n_heads, d // self.n_heads).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, n, d)
            x = x + F.linear(y, blk.W_O)
            c = F.layer_norm(x, (d,), blk.ln2_g, blk.ln2_b, eps=1e-5)
            x = x + F.linear(F.gelu(F.linear(c, blk.W_1, blk.b_1)), blk.W_2, blk.b_2)
        return F.linear(F.layer_norm(x, (d,), self.lnf_g, self.lnf_b, eps=1e-5), self.wte)  # tied


def torch_setup(params, n_layers, n_heads):
    model = TorchGPT(params, n_layers, n_heads)
    decay = [p for p in model.parameters() if p.dim() >= 2]  # nanoGPT: no decay on gains and biases
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": WEIGHT_DECAY}, {"params": no_decay, "weight_decay": 0.0}]
    return model, torch.optim.AdamW(groups, lr=LR)


def torch_steps(model, optimizer, x, y, steps):
    for _ in range(steps):
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        optimizer.step()


def library_steps(params, x, y, n_heads, steps):
    train(
        params,
        x,
        y,
        n_heads,
        steps,
        lr=LR,
        weight_decay=WEIGHT_DECAY,
        max_grad_norm=CLIP,
        activation="gelu",
        tie_embeddings=True,
    )


def check_same_model(params, n_layers, n_heads, x, y):
    """The first loss and every gradient of the two agree to float32's precision, or the script stops."""
    loss, grads = loss_and_grads(params, x, y, n_heads, activation="gelu", tie_embeddings=True)
    model, _ = torch_setup(params, n_layers, n_heads)
    logits = model(torch.tensor(x))
    t_loss = F.cross_entropy(logits.view(-1, VOCAB), torch.tensor(y).view(-1))
    t_loss.backward()
    theirs = {"W_E": model.wte.grad, "W_P": model.wpe.grad, "lnf_g": model.lnf_g.grad, "lnf_b": model.lnf_b.grad}
    for layer, blk in enumerate(model.blocks):
        p = "" if layer == 0 else f"h{layer}."
        for name, g in zip(("W_Q", "W_K", "W_V"), blk.c_attn.grad.T.split(blk.c_attn.shape[1], dim=1)):
            theirs[p + name] = g
        for name in ("ln1_g", "ln1_b", "W_O", "ln2_g", "ln2_b", "W_1", "b_1", "W_2", "b_2"):
            g = getattr(blk, name).grad
            theirs[p + name] = g.T if g.dim() == 2 else g
    assert abs(loss - t_loss.item()) <= 1e-5 * abs(loss), (loss, t_loss.item())
    for name, g in grads.items():
        ref = theirs[name].numpy()
        scale = float(np.abs(ref).max()) or 1.0
        err = float(np.abs(g - ref).max()) / scale
        assert g.dtype == np.float32 and err < 1e-4, f"gradient of {name} differs by {err:.1e} of its largest entry"


def cpu_time(f):
    start = time.process_time()
    f()
    return time.process_time() - start


def main(repeat: int, steps: int) -> None:
    if torch is None:
        print(
            "bench_training_step: PyTorch is not installed here; run it with a Python that has torch "
            "(pip install torch==2.13.0 takes the CPU wheel). Skipped."
        )
        return
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    cases = []
    for d, ctx, n_layers, n_heads in SIZES:
        params = library_params(d, ctx, n_layers)
        windows = rng.integers(0, VOCAB, size=(BATCH, ctx + 1))
        x, y = windows[:, :-1], windows[:, 1:]
        check_same_model(params, n_layers, n_heads, x, y)
        model, optimizer = torch_setup(params, n_layers, n_heads)
        tx, ty = torch.tensor(x), torch.tensor(y)
        cases.append(
            {
                "label": f"d={d:3d} ctx={ctx:2d} L={n_layers} h={n_heads}",
                "library": lambda p=params, x=x, y=y, h=n_heads: library_steps(p, x, y, h, steps),
                "torch": lambda m=model, o=optimizer, x=tx, y=ty: torch_steps(m, o, x, y, steps),
                "times": {"library": [], "torch": []},
            }
        )
    for case in cases:  # warm-up: first calls allocate and load
        case["library"](), case["torch"]()
    load_before = os.getloadavg()
    for r in range(repeat):
        for case in cases:
            for side in ("library", "torch") if r % 2 == 0 else ("torch", "library"):
                case["times"][side].append(cpu_time(case[side]) / steps)
    load_after = os.getloadavg()
    print(f"one training step, batch {BATCH}, float32, one thread, median of {repeat} x {steps} steps (CPU time)")
    print(
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"NumPy {np.__version__}, PyTorch {torch.__version__}"
    )
    print(
        f"load average (1, 5, 15 min): before {' '.join(f'{v:.2f}' for v in load_before)}, "
        f"after {' '.join(f'{v:.2f}' for v in load_after)}"
    )
    worst = 0.0
    for case in cases:
        lib, ref = median(case["times"]["library"]), median(case["times"]["torch"])
        worst = max(worst, lib / ref)
        print(f"{case['label']}: library {1e3 * lib:7.2f} ms, PyTorch {1e3 * ref:7.2f} ms, ratio {lib / ref:5.2f}")
    print(f"largest ratio {worst:.2f}: {'within' if worst <= BUDGET else 'MISSES'} the budget of {BUDGET}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()
    main(args.repeat, args.steps)
    sys.exit(0)
