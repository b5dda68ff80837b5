r"""What a forward pass's cache must hold for the backward pass that reads it (the capstone lab "Your own GPT").

A forward pass whose output is right can still leave a cache the backward pass cannot use: an array written over
in place after it was cached (``x1 += r @ W_2 + b_2`` turns the cached $x_1$ into $x_2$), one cache shared by
two blocks, or arrays a later call writes into. The output cannot show it, and a right backward pass fed from
that cache fails with a message about its own formulas. So the forward pass's own check (``run_block_forward``,
``run_gpt_forward``: the output first, then the cache) says which entry is wrong: ``block_cache_fault`` for one
block, ``shared_cache`` for the blocks of a model, ``model_entry_fault`` for the model's own entries (the last
block's output and its normalised form, which the final LayerNorm and $W_U$ read) and ``heads_fault`` for the
number of heads, which the backward pass is not told; and a second call must leave the first call's cache alone.
An entry under a name the hint gives must hold that array (``entry_fault``): the same values in the same order, in
its shape or another of its size, such as (B*T, d) (the heads split or joined); another array (the logits kept as
$z$), or the same values in another order (a transpose), is refused, and so is a mask other than the causal one
(``mask_fault``). An entry left out, or under a name of the learner's own, is the learner's design.

Example
-------
>>> import numpy as np
>>> from transformer_math.labs.forward_cache import block_cache_fault, mask_fault
>>> x1 = np.ones((2, 4))
>>> cache = {"x": np.zeros((2, 4)), "x1": x1}
>>> x1 += 1.0                              # the second residual added in place: x2 is the cached x1
>>> block_cache_fault(cache, x1, {"x1": np.ones((2, 4))}).split(":")[0]
"cache['x1'] is the very array you return as x2"
>>> print(block_cache_fault({"x1": np.zeros((2, 4))}, np.ones((2, 4)), {"x1": np.ones((2, 4))}))
cache['x1'] does not hold x1 = x + MHA(LN1(x)), which block_backward reads there: the largest error is 1.0e+00, at index (0, 0) (tolerance 1e-09 + 1e-06 of the value)

The same values in another shape of the same size, read in the same order, will do; a transpose will not:

>>> x1 = np.arange(8.0).reshape(2, 4)
>>> print(block_cache_fault({"x1": x1.reshape(8)}, None, {"x1": x1}))
None
>>> print(block_cache_fault({"x1": x1.T}, None, {"x1": x1}))
cache['x1'] holds an array of shape (4, 2) whose entries, read in order, are not those of x1 = x + MHA(LN1(x)), which block_backward reads there, of shape (2, 4) (a reshape of it would do; a transpose or another array does not)

The mask is the causal one, True (or 1) where a position may be seen, as ``attention_backward`` reads it:

>>> causal = np.tril(np.ones((3, 3), dtype=bool))
>>> print(mask_fault(causal[None].astype(int), causal))
None
>>> print(mask_fault(np.ones((3, 3), dtype=bool), causal).split(": ")[1])
it is True at index (0, 1)
>>> print(mask_fault(np.where(causal, 0.0, -np.inf), causal).split(" (")[0])
cache['mask'] holds numbers other than 0 and 1
"""

from __future__ import annotations

import re

import numpy as np

from transformer_math.attention import causal_mask, merge_heads, split_heads
from transformer_math.block import block_forward as reference_block_forward
from transformer_math.block import n_layers_of, prefix
from transformer_math.labs.cases import changed, snapshot
from transformer_math.labs.diagnose import compare
from transformer_math.labs.runner import Verdict
from transformer_math.model import forward

__all__: list[str] = []

# The entries of a block's cache named as the lab's hint names them, and what each must hold: the reference's
# intermediate of that name (and the block's input x, and the causal mask).
MEANING = {
    "x": "the block's input x",
    "a": "a = LN1(x)",
    "q": "q, the heads of a @ W_Q",
    "k": "k, the heads of a @ W_K",
    "v": "v, the heads of a @ W_V",
    "mask": "the causal mask, True where a position may be seen (np.tril of an (n, n) block of True)",
    "o": "o, the heads joined before W_O",
    "x1": "x1 = x + MHA(LN1(x))",
    "c": "c = LN2(x1)",
    "u": "the signs of u = c @ W_1 + b_1",
    "r": "r = ReLU(u)",
}
# The heads, which a backward pass can read split, (..., h, n, d/h), or joined, (..., n, d): either layout will do.
HEADS = ("q", "k", "v", "o")
TOL = {"tol": 1e-9, "rtol": 1e-6}


def block_expected(intermediates: dict, x) -> dict:
    """What a block's cache must hold under the hint's names, from the reference's intermediates and its input x."""
    x = np.asarray(x, dtype=float)
    return {**intermediates, "x": x, "mask": causal_mask(x.shape[-2])}


def entries(value) -> list:
    if isinstance(value, dict):
        return list(value.values())
    return list(value) if isinstance(value, (list, tuple)) else []


def labelled(cache) -> list[tuple[str, object]]:
    """The cache's entries with the way to name each (``cache['x1']``, ``cache[3]``)."""
    if isinstance(cache, dict):
        return [(f"cache[{key!r}]", value) for key, value in cache.items()]
    return [(f"cache[{index}]", value) for index, value in enumerate(entries(cache))]


def block_cache_fault(cache, x2, expected: dict) -> str | None:
    """What is wrong with one block's cache, or None: an entry that is (or shares memory with) the returned
    ``x2``, which the backward pass never needs, so that it was an array written over in place; then an entry
    named as in ``MEANING`` that does not hold the array ``expected`` under that name (``entry_fault``: of ``u``,
    the ReLU's input, only the signs count; the heads in either layout; the mask in any form ``attention_backward``
    reads as the causal mask). An entry of the learner's own name is the learner's design."""
    if isinstance(x2, np.ndarray):
        for label, value in labelled(cache):
            if isinstance(value, np.ndarray) and value.dtype.kind == "f" and np.shares_memory(value, x2):
                return (
                    f"{label} is the very array you return as x2: a step done in place after it was cached "
                    "(x1 += ...) wrote x2 over it, and the backward pass needs nothing of x2. Give each step a "
                    "new array: x2 = x1 + ..."
                )
    if not isinstance(cache, dict):
        return None
    for key, meaning in MEANING.items():
        if key not in expected or cache.get(key) is None:
            continue  # left out: the learner's backward pass does without it
        if key == "mask":
            fault = mask_fault(cache[key], expected[key])
        else:
            fault = entry_fault(key, cache[key], layouts(key, expected), f"{meaning}, which block_backward reads there")
        if fault:
            return fault
    return None


def layouts(key: str, expected: dict) -> list[np.ndarray]:
    """The arrays an entry named ``key`` may hold: the expected one, and for the heads their other layout."""
    array = np.asarray(expected[key])
    if key not in HEADS or "q" not in expected:
        return [array]
    if key == "o":
        return [array, split_heads(array, np.shape(expected["q"])[-3])]
    return [array, merge_heads(array)]


def numbers(value) -> np.ndarray | None:
    """``value`` as an array of real numbers (a list of them too), or None if it is none (a dict, text, ragged)."""
    try:
        array = np.asarray(value)
    except (ValueError, TypeError):
        return None
    return array if array.dtype.kind in "biuf" else None


def entry_fault(key: str, value, forms: list[np.ndarray], meaning: str, exact: bool = False) -> str | None:
    """What is wrong with the entry ``key`` of a cache, or None: it must hold one of ``forms`` with the same
    values in the same order, in that shape or in another of the same size (a reshape, such as (B*T, d), which
    the learner's backward pass may read); a transpose or another array is refused. Compared within ``TOL``,
    ``exact`` (the tokens) to the last digit, ``u`` by its signs."""
    array = numbers(value)
    if array is None:
        return f"cache[{key!r}] holds {type(value).__name__}, not {meaning}"
    wider = [form.dtype for form in forms if form.dtype.kind == array.dtype.kind == "f"]
    if key != "u" and wider and array.dtype.itemsize < min(dtype.itemsize for dtype in wider):
        return (
            f"cache[{key!r}] holds {array.dtype} where the forward pass computed {wider[0]}: keep the cache in "
            "that precision, which the backward pass reads (rounding there shows only in its gradients)"
        )
    sized = [form for form in forms if form.size == array.size]
    if not sized:
        return f"cache[{key!r}] holds an array of shape {array.shape}, not {meaning}, of shape {forms[0].shape}"
    faults = []
    for form in sized:
        mine = array.reshape(form.shape)
        if exact:
            lines = None if np.array_equal(mine, form) else ["its entries are not the tokens"]
        elif key == "u":  # the ReLU's backward reads only its gate: u or r = ReLU(u) (the ReLU done in place) will do
            lines = compare(mine > 0, form > 0, **TOL)
        else:
            lines = compare(mine.astype(float), form, **TOL)
        if not lines:
            return None
        faults.append((form.shape == array.shape, lines[0], form.shape))
    same_shape = [fault for fault in faults if fault[0]]
    if same_shape:
        return f"cache[{key!r}] does not hold {meaning}: {same_shape[0][1]}"
    return (
        f"cache[{key!r}] holds an array of shape {array.shape} whose entries, read in order, are not those of "
        f"{meaning}, of shape {faults[0][2]} (a reshape of it would do; a transpose or another array does not)"
    )


def mask_fault(value, causal: np.ndarray) -> str | None:
    """What is wrong with a cached mask, or None: it must be the causal mask, True (or 1) where a position may be
    seen, as ``attention`` and ``attention_backward`` read it (``np.where(mask, S, -inf)``), of shape (n, n),
    stacked (..., n, n) or another of n * n entries. An additive mask of 0 and -inf, read that way, hides the
    wrong half, so it is refused."""
    meaning = f"{MEANING['mask']}, which attention_backward reads there"
    array = numbers(value)
    if array is None:
        return f"cache['mask'] holds {type(value).__name__}, not {meaning}"
    if array.dtype.kind != "b" and not np.isin(array, (0, 1)).all():
        return f"cache['mask'] holds numbers other than 0 and 1 (an additive mask of 0 and -inf?), not {meaning}"
    n = causal.shape[-1]
    if array.size == n * n:
        array = array.reshape(n, n)
    if array.ndim < 2 or array.shape[-2:] != causal.shape:
        return f"cache['mask'] holds an array of shape {array.shape}, not {meaning}, of shape {causal.shape}"
    wrong = np.argwhere(array.astype(bool) != causal)
    if wrong.size:
        index = tuple(int(i) for i in wrong[0])
        return f"cache['mask'] does not hold {meaning}: it is {not causal[index[-2:]]} at index {index}"
    return None


def shared_cache(cache) -> str | None:
    """What ties two blocks' caches together: one dict (or list) in two entries of a list, or float arrays under
    one key of two entries that share memory (written over in place by a later step)."""
    seen, stack = set(), [cache]
    while stack:
        value = stack.pop()
        if id(value) in seen or not isinstance(value, (dict, list, tuple)):
            continue
        seen.add(id(value))
        parts = entries(value)
        stack.extend(parts)
        containers = [part for part in parts if isinstance(part, (dict, list))]
        if len({id(part) for part in containers}) < len(containers):
            return (
                "two entries of your cache are one and the same object (the blocks share one cache?): "
                "each block's cache must be its own"
            )
        tables = [part for part in parts if isinstance(part, dict)]
        for i, first in enumerate(tables):
            for later in tables[i + 1 :]:
                for key, array in first.items():
                    other = later.get(key)
                    if (
                        isinstance(array, np.ndarray)
                        and isinstance(other, np.ndarray)
                        and array.dtype.kind == "f"
                        and np.shares_memory(array, other)
                    ):
                        return (
                            f"two blocks' caches hold {key!r} in the same memory: a later block wrote over an "
                            "earlier block's cached array (x[...] = ..., x += ...); give each step a new array"
                        )
    return None


def output_of(function, *args):
    """The first value of a forward function that returns (output, cache)."""
    result = function(*args)
    if isinstance(result, tuple) and len(result) == 2:
        return result[0]
    if result is Ellipsis or (isinstance(result, tuple) and Ellipsis in result):
        return ...
    raise Verdict("Wrong", f"it returned {type(result).__name__}, not the pair (output, cache)")


def run_block_forward(function, x, p, n_heads):
    """x2 of the learner's ``block_forward``, after a look at its cache, which ``block_backward`` will read: no
    entry is the returned x2 (an array written over in place), the entries named as in the hint hold those values,
    and a second call leaves the first call's cache as it was (``forward_cache``)."""
    result = function(x, p, n_heads)
    x2 = output_of(lambda: result)
    x = np.asarray(x, dtype=float)
    reference, intermediates = reference_block_forward(p, x, n_heads)
    if x2 is Ellipsis or compare(x2, reference, **TOL):
        return x2  # wrong x2: the comparison says how
    fault = block_cache_fault(result[1], x2, block_expected(intermediates, x))
    if fault is None:
        kept = snapshot(result[1])
        function(0.5 * x + 1.0, p, n_heads)  # another x, other arrays
        if changed(kept, result[1]):
            fault = "a call on another x changed the cache of this call: give each call a cache of its own"
    if fault:
        raise Verdict("Wrong", f"x2 is right, but {fault}")
    return x2


def block_caches(cache, count: int) -> list | None:
    """The blocks' caches in a model's cache, at its top or one level down: a list (or tuple) of ``count`` dicts;
    else a dict with ``count`` dicts among its values (``blocks=dict(enumerate(caches))``, or flat beside the
    model's entries as ``cache["block0"]``), in the order of the layer number in their keys."""
    for value in [cache, *entries(cache)]:
        if isinstance(value, (list, tuple)) and len(value) == count and all(isinstance(v, dict) for v in value):
            return list(value)
    for value in [cache, *entries(cache)]:
        tables = [(key, v) for key, v in value.items() if isinstance(v, dict)] if isinstance(value, dict) else []
        if count and len(tables) == count:
            order = sorted(range(count), key=lambda i: (layer_number(tables[i][0]), i))
            return [tables[i][1] for i in order]
    return None


def layer_number(key) -> int:
    """The layer a key names: an integer key, or a name's last number (``"block10"``); else 0 (the keys' order)."""
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        return int(key)
    found = re.findall(r"\d+", key) if isinstance(key, str) else []
    return int(found[-1]) if found else 0


# The model's own entries, named as the lab's solution names them, and what each must hold.
MODEL_MEANING = {
    "tokens": "the tokens, which the embeddings' gradients are scattered by",
    "x": "x, the stream after the last block, which the final LayerNorm's backward reads",
    "z": "z = LN_f(x), the normalised stream, which W_U's gradient reads",
}


def gpt_cache_fault(cache, params, tokens, n_heads) -> str | None:
    """What is wrong with a model's cache, or None: blocks that share a cache or its arrays (``shared_cache``),
    a block's entry named as in the hint that does not hold that block's array (``block_cache_fault``), a model
    entry named as in ``MODEL_MEANING`` that does not hold its value (judged as ``block_cache_fault`` judges), and
    no ``n_heads`` anywhere in it."""
    lines = shared_cache(cache)
    if lines:
        return lines
    count = n_layers_of(params)
    blocks = block_caches(cache, count) or []
    reference = forward(params, np.asarray(tokens), n_heads)[1]
    faults = ((layer, block_fault(reference, layer, mine)) for layer, mine in enumerate(blocks))
    fault = next(((layer, said) for layer, said in faults if said), None)  # the first block's fault, the rest not run
    if fault and count > 1 and not any(block_fault(reference, layer, mine) for layer, mine in enumerate(blocks[::-1])):
        return (
            "the blocks' caches are in reverse order, the last block's first: keep them in layer order, block 0's "
            "first, as gpt_backward reads cache['blocks'][layer]"
        )
    if fault:
        return f"in block {fault[0]}'s cache, {fault[1]}"
    expected = {"tokens": reference["tokens"], "x": reference[prefix(count - 1) + "x2"], "z": reference["z"]}
    return model_entry_fault(cache, expected) or heads_fault(cache, n_heads)


def block_fault(reference: dict, layer: int, mine) -> str | None:
    """What is wrong with the cache ``mine`` as block ``layer``'s (``block_cache_fault``), from the model's reference
    intermediates."""
    name = prefix(layer)
    x = reference["x0"] if layer == 0 else reference[prefix(layer - 1) + "x2"]
    expected = block_expected({key: reference[name + key] for key in MEANING if name + key in reference}, x)
    return block_cache_fault(mine, None, expected)


def model_entry_fault(cache, expected: dict) -> str | None:
    """An entry named as in ``MODEL_MEANING`` that does not hold the expected value (``entry_fault``: the same
    values in the same order, in any shape; the tokens exactly, kept as given or as an array)."""
    if not isinstance(cache, dict):
        return None
    for key, meaning in MODEL_MEANING.items():
        if cache.get(key) is not None:
            fault = entry_fault(key, cache[key], [np.asarray(expected[key])], meaning, exact=key == "tokens")
            if fault:
                return fault
    return None


def heads_fault(cache, n_heads) -> str | None:
    """``n_heads`` kept nowhere in the cache (under any name, at any depth), though ``gpt_backward`` is not told it."""
    stack, seen = [cache], set()
    while stack:
        value = stack.pop()
        if isinstance(value, (bool, np.bool_)) or id(value) in seen:
            continue
        if isinstance(value, (int, np.integer)) and value == n_heads:
            return None
        seen.add(id(value))
        stack.extend(entries(value))
    return (
        "it does not keep n_heads, which gpt_backward is not told and block_backward needs: keep it too "
        "(cache['n_heads'] = n_heads)"
    )


def run_gpt_forward(function, params, tokens, n_heads):
    """The logits of the learner's ``gpt_forward``, after a look at its cache: each block's cache its own, holding
    what the block's backward pass reads, the model's entries named as in the hint holding theirs, ``n_heads`` kept,
    and none of its arrays changed later (by a later block's step, or by
    the next call), which the logits cannot show but the backward pass, fed from that cache, would."""
    result = function(params, tokens, n_heads)
    if not (isinstance(result, tuple) and len(result) == 2) or any(part is Ellipsis for part in result):
        return output_of(lambda: result)
    logits, cache = result
    if compare(logits, reference_logits(params, tokens, n_heads), **TOL):
        return logits  # wrong logits: the comparison says how
    lines = gpt_cache_fault(cache, params, tokens, n_heads)
    if lines is None:
        kept = snapshot(cache)
        function(params, (np.asarray(tokens) + 1) % params["W_E"].shape[0], n_heads)  # other tokens, other arrays
        if changed(kept, cache):
            lines = "a call on other tokens changed the cache of this call: give each call a cache of its own"
    if lines:
        raise Verdict("Wrong", f"the logits are right, but {lines}")
    return logits


def reference_logits(params, tokens, n_heads):
    return forward(params, np.asarray(tokens), n_heads)[0]
