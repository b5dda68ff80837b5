import numpy as np

from transformer_math.linalg import power_iteration

# 300 "embedding vectors" of dimension 8 that mostly vary along 2 hidden directions, plus noise.
rng = np.random.default_rng(0)
n, d = 300, 8
directions, _ = np.linalg.qr(rng.normal(size=(d, 2)))  # two orthonormal directions, shape (8, 2)
strengths = rng.normal(size=(n, 2)) * [3.0, 1.5]  # how far each vector goes along each
X = strengths @ directions.T + 0.3 * rng.normal(size=(n, d))
print("embeddings:", X.shape)

# PCA: centre the data, form the covariance matrix, take its eigenvectors.
X_centred = X - X.mean(axis=0)
C = X_centred.T @ X_centred / (n - 1)  # (8, 8), symmetric
print("covariance:", C.shape, " symmetric:", np.allclose(C, C.T), " same as np.cov:", np.allclose(C, np.cov(X.T)))

values, vectors = np.linalg.eigh(C)  # ascending order
values, vectors = values[::-1], vectors[:, ::-1]  # largest first
print("eigenvalues (variance along each axis):", np.round(values, 3))
explained = values / values.sum()
print("share of the variance:", np.round(explained, 3))
print(f"the first 2 components explain {explained[:2].sum():.1%}")

# The top component, by power iteration, agrees with eigh (up to the sign of the vector).
top_value, top_vector = power_iteration(C)
print("power iteration:", round(top_value, 6), " eigh:", round(float(values[0]), 6))
print("same direction:", np.isclose(abs(top_vector @ vectors[:, 0]), 1.0))

# Did PCA find the hidden directions? Each principal axis lies in their span.
in_span = np.linalg.norm(directions.T @ vectors[:, :2], axis=0)
print("length of the top 2 axes inside the hidden plane:", np.round(in_span, 3))

# Project every embedding onto the top 2 axes: 8 numbers -> 2 numbers per vector.
projected = X_centred @ vectors[:, :2]
print("projected:", projected.shape)
