import numpy as np

tokens = np.array(["cat", "dog", "bird"])
probs = np.array([0.70, 0.20, 0.10])
rng = np.random.default_rng(0)

print("first ten samples:", rng.choice(tokens, size=10, p=probs))
print()
print(f"{'n':>9}   {'cat':>6} {'dog':>6} {'bird':>6}   largest gap to P")
for n in [10, 100, 1_000, 10_000, 100_000, 1_000_000]:
    samples = rng.choice(len(tokens), size=n, p=probs)  # token ids 0, 1, 2
    counts = np.bincount(samples, minlength=len(tokens))
    shares = counts / n
    gap = np.max(np.abs(shares - probs))
    print(f"{n:>9}   {shares[0]:6.4f} {shares[1]:6.4f} {shares[2]:6.4f}   {gap:.4f}")

print()
print("counts behind the last line:", dict(zip(tokens.tolist(), counts.tolist())))
