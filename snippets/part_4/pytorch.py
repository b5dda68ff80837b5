"""What docs/part-4/pytorch.md shows: the library's model written in PyTorch, no figures.

The chapter “The bridge to PyTorch”. Its section is inside a function, so that importing this module (as the
build does with every chapter's module) needs no PyTorch; the page's blocks that include it run where the
``reference`` extra is installed and are reported as skipped elsewhere.
"""

from __future__ import annotations


def gpt() -> None:
    """The page's model: a GPT of ``torch.nn`` layers, and the map from its tensors to the library's arrays."""
    # --8<-- [start:gpt]
    import numpy as np
    import torch
    from torch import nn
    from torch.nn import functional as F

    class Block(nn.Module):
        def __init__(self, d, d_ff, n_heads):
            super().__init__()
            self.n_heads, self.ln_1, self.ln_2 = n_heads, nn.LayerNorm(d), nn.LayerNorm(d)
            self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
            self.fc, self.fc_out = nn.Linear(d, d_ff), nn.Linear(d_ff, d)

        def forward(self, x):
            b, n, d = x.shape
            a = self.ln_1(x)
            q, k, v = (f(a).view(b, n, self.n_heads, -1).transpose(1, 2) for f in (self.q, self.k, self.v))
            heads = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (b, h, n, d_head)
            x = x + self.o(heads.transpose(1, 2).reshape(b, n, d))
            return x + self.fc_out(F.relu(self.fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self, vocab_size, d, d_ff, n_heads, n_layers, n_ctx):
            super().__init__()
            self.wte, self.ln_f = nn.Embedding(vocab_size, d), nn.LayerNorm(d)
            pos, two_i = torch.arange(n_ctx, dtype=torch.float64), torch.arange(0, d, 2, dtype=torch.float64)
            angle = pos[:, None] / 10000 ** (two_i / d)  # the sinusoids of positional_encoding, in float64
            self.register_buffer("wpe", torch.stack([angle.sin(), angle.cos()], -1).reshape(n_ctx, d))
            self.h = nn.ModuleList(Block(d, d_ff, n_heads) for _ in range(n_layers))
            self.lm_head = nn.Linear(d, vocab_size, bias=False)

        def forward(self, idx):
            x = self.wte(idx) + self.wpe[: idx.shape[-1]]  # embeddings plus fixed sinusoids
            for block in self.h:
                x = block(x)
            return self.lm_head(self.ln_f(x))

    def tensors(gpt):
        """(library name, tensor, stored transposed?) for every parameter: nn.Linear keeps W^T."""
        pairs = [("W_E", gpt.wte.weight, False), ("lnf_g", gpt.ln_f.weight, False), ("lnf_b", gpt.ln_f.bias, False)]
        for layer, b in enumerate(gpt.h):
            p = "" if layer == 0 else f"h{layer}."
            pairs += [(p + "ln1_g", b.ln_1.weight, False), (p + "ln1_b", b.ln_1.bias, False)]
            pairs += [(p + "W_" + x.upper(), getattr(b, x).weight, True) for x in "qkvo"]
            pairs += [(p + "ln2_g", b.ln_2.weight, False), (p + "ln2_b", b.ln_2.bias, False)]
            pairs += [(p + "W_1", b.fc.weight, True), (p + "b_1", b.fc.bias, False)]
            pairs += [(p + "W_2", b.fc_out.weight, True), (p + "b_2", b.fc_out.bias, False)]
        return pairs + [("W_U", gpt.lm_head.weight, True)]

    def load(gpt, params):
        """Copy the library's arrays into the model, transposing what nn.Linear stores transposed."""
        with torch.no_grad():
            for name, tensor, transposed in tensors(gpt):
                tensor.copy_(torch.from_numpy(params[name].T if transposed else params[name]))
        return gpt

    def as_numpy(tensor, transposed):
        return tensor.detach().numpy().T if transposed else tensor.detach().numpy()

    # --8<-- [end:gpt]
    return GPT, tensors, load, as_numpy, np
