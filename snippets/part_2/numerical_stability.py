"""What docs/part-2/numerical-stability.md includes: its longer examples.

The chapter “Numerical stability: a softmax that never overflows”. The page shows the sections between
``--8<--`` markers; each example is the body of a function, so that importing this module runs nothing.
"""

from __future__ import annotations


def formats() -> None:
    """The page's table: where exp overflows, where a probability underflows to 0 and where the top one rounds to 1, per format."""
    # --8<-- [start:formats]
    import numpy as np

    # largest value, smallest positive value, machine epsilon; bfloat16's stated, as NumPy has none: float32's
    # exponents with 7 fraction bits
    formats = {"float64": np.float64, "float32": np.float32, "float16": np.float16}
    limits = {  # the smallest positive value is the next float after 0
        name: (float(np.finfo(t).max), float(np.nextafter(t(0), t(1))), float(np.finfo(t).eps))
        for name, t in formats.items()
    }
    limits["bfloat16"] = ((2 - 2**-7) * 2.0**127, 2.0**-133, 2.0**-7)

    print("format     naive NaN    p = 0 at gap   top p = 1 at gap")
    for name, (largest, smallest, eps) in limits.items():
        overflow = np.log(largest)  # e^x > largest: the naive softmax overflows
        underflow = np.log(2) - np.log(smallest)  # e^-k below half the smallest positive value rounds to 0
        top_is_one = -np.log(eps / 2)  # 1 + e^-k rounds to 1 once e^-k < eps / 2
        print(f"{name:9}  x > {overflow:6.2f}   k > {underflow:6.2f}     k > {top_is_one:5.2f}")
    # --8<-- [end:formats]


def low_precision() -> None:
    """The page's float16 example: the naive softmax breaks at 12, and a float16 running sum stalls at 2048."""
    # --8<-- [start:low-precision]
    import warnings

    import numpy as np

    from transformer_math.softmax import naive_softmax, softmax

    z = np.array([10.0, 11.0, 12.0], dtype=np.float16)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        print("naive, float16: ", naive_softmax(z))
    print("stable, float16:", softmax(z), "  float64:", softmax(z.astype(np.float64)).round(4))

    # adding up the exponentials of V = 50,257 equal logits, one term after another, in float16
    terms = np.ones(50_257, dtype=np.float16)  # each e^(z_j - m) = e^0 = 1
    print("running sum in float16:", np.cumsum(terms)[-1], "  in float32:", np.cumsum(terms, dtype=np.float32)[-1])
    print("2048 + 1 in float16:", np.float16(2048) + np.float16(1))
    # --8<-- [end:low-precision]
