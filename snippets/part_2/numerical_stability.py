"""What docs/part-2/numerical-stability.md includes: its longer examples.

The chapter “Numerical stability: a softmax that never overflows”. The page shows the sections between
``--8<--`` markers; each example is the body of a function, so that importing this module runs nothing.
"""

from __future__ import annotations


def formats() -> None:
    """The page's table: where exp overflows, where a probability underflows to 0 and where the top one rounds to 1, per format."""
    # --8<-- [start:formats]
    import numpy as np

    # (largest finite value, smallest positive value, machine epsilon) of each format;
    # NumPy has no bfloat16, so its three numbers come from its layout: 8 exponent bits, 7 fraction bits
    formats = {
        "float64": np.finfo(np.float64),
        "float32": np.finfo(np.float32),
        "float16": np.finfo(np.float16),
    }
    limits = {name: (float(f.max), float(f.smallest_subnormal), float(f.eps)) for name, f in formats.items()}
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
    print("float32, softmax([0, -104]):", softmax(np.array([0.0, -104.0], dtype=np.float32)))

    # adding up the exponentials of V = 50,257 equal logits, one term after another, in float16
    terms = np.ones(50_257, dtype=np.float16)  # each e^(z_j - m) = e^0 = 1
    print("running sum in float16:", np.cumsum(terms)[-1], "  in float32:", np.cumsum(terms, dtype=np.float32)[-1])
    print("2048 + 1 in float16:", np.float16(2048) + np.float16(1))
    # --8<-- [end:low-precision]


def lse_log1p() -> None:
    """The page's example: m + ln(1 + tiny) loses the tiny part that m + log1p(tiny) keeps."""
    # --8<-- [start:lse-log1p]
    import numpy as np

    def lse_sum(x):
        """m + ln(sum of e^(x_j - m)): the sum is 1 + (the rest), formed before the logarithm"""
        m = np.max(x)
        return m + np.log(np.sum(np.exp(x - m)))

    def lse_log1p(x):
        """m + log1p(sum over j != k of e^(x_j - m)), k the position of the maximum: the rest kept apart"""
        k = np.argmax(x)
        rest = np.delete(x, k) - x[k]
        return x[k] + np.log1p(np.sum(np.exp(rest)))

    x = np.array([0.0, -40.0])
    print("ln(1 + e^-40) ~ e^-40 =", np.exp(-40.0))
    print("with ln:   ", lse_sum(x), "  log p(top) =", x[0] - lse_sum(x))
    print("with log1p:", lse_log1p(x), "  log p(top) =", x[0] - lse_log1p(x))
    # --8<-- [end:lse-log1p]


def exp_of_log_softmax() -> None:
    """The page's example: exp(x - LSE(x)) carries LSE's absolute rounding error into every probability."""
    # --8<-- [start:exp-of-log-softmax]
    from decimal import Decimal, getcontext

    import numpy as np

    from transformer_math.softmax import log_softmax, logsumexp, softmax

    def exact_softmax(x):
        """softmax to 40 digits: Decimal(float) is exact, so only the exponentials round"""
        getcontext().prec = 40
        m = max(Decimal(v) for v in x)
        e = [(Decimal(v) - m).exp() for v in x]
        total = sum(e)
        return np.array([float(v / total) for v in e])

    rng = np.random.default_rng(0)
    noise = rng.normal(size=1000)
    print("largest relative error of a probability")
    print("size of logits   softmax   exp(log_softmax)   exp(x - LSE)")
    for offset in [0.0, 1e3, 1e6, 1e9]:
        x = offset + noise
        exact = exact_softmax(x)
        errors = [np.max(np.abs(p / exact - 1)) for p in (softmax(x), np.exp(log_softmax(x)), np.exp(x - logsumexp(x)))]
        print(f"{offset:14.0e}" + "".join(f"{e:{w}.1e}" for e, w in zip(errors, [10, 19, 15])))
    # --8<-- [end:exp-of-log-softmax]
