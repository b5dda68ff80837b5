"""Everything docs/part-1/eigenvalues.md draws or includes."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tools.explorers import (
    Explorer,
    arrow,
    build,
    explorer,
    line,
    num,
    polyline,
    slider,
    svg,
    text,
)
from tools.figures import figure
from transformer_math.linalg import cosine_similarity, matmul_loops, norm, power_iteration


@figure("unit-circle-map")
# --8<-- [start:unit-circle-map]
def unit_circle_map() -> Figure:
    """A matrix maps the unit circle to an ellipse; its eigenvectors are the stretched axes."""
    A = np.array([[2.0, 1.0], [1.0, 2.0]])
    angles = np.linspace(0, 2 * np.pi, 200)
    circle = np.stack([np.cos(angles), np.sin(angles)])  # shape (2, 200): one column per point
    ellipse = A @ circle
    values, vectors = np.linalg.eigh(A)

    fig = Figure(figsize=(5, 5))
    ax = fig.subplots()
    ax.plot(*circle, label="unit circle: all x with |x| = 1")
    ax.plot(*ellipse, label="A x for every x on the circle")
    samples = np.stack([np.cos(np.arange(12) * np.pi / 6 + 0.3), np.sin(np.arange(12) * np.pi / 6 + 0.3)])
    for x, image in zip(samples.T, (A @ samples).T):  # a few points and where they land: most are turned
        ax.plot(*np.stack([x, image]).T, color="C3", lw=1, ls=":", marker=".", markersize=5)
    ax.plot([], [], color="C3", lw=1, ls=":", marker=".", label="x and A x for a few x")
    for value, vector in zip(values, vectors.T):
        ax.annotate("", xy=value * vector, xytext=(0, 0), arrowprops={"arrowstyle": "->", "lw": 2, "color": "C2"})
        ax.text(*((value + 0.45) * vector), f"λ = {value:g}", color="C2", ha="center", va="center")
    ax.set_aspect("equal")
    ax.set_xlim(-3.5, 3.5)
    ax.set_ylim(-3.5, 3.5)
    ax.legend(loc="lower right", fontsize=9)
    ax.set_title("A = [[2, 1], [1, 2]] stretches along its eigenvectors")
    return fig


# --8<-- [end:unit-circle-map]


# --8<-- [start:matrix-on-vector]
def matrix_on_vector(angle_degrees):
    """The unit vector v at an angle, its image A v, how long A v is, and the cosine between v and A v
    (1 or -1 when A only stretches v: v is then an eigenvector)."""
    A = np.array([[2.0, 1.0], [1.0, 2.0]])
    angle = np.radians(angle_degrees)
    v = np.array([np.cos(angle), np.sin(angle)])
    Av = matmul_loops(A, v.reshape(2, 1)).ravel()
    return v, Av, norm(Av), cosine_similarity(v, Av)


def eigen_directions():
    """Both eigenvalues and eigenvectors of A, by power iteration and then deflation."""
    A = np.array([[2.0, 1.0], [1.0, 2.0]])
    value_1, u_1 = power_iteration(A, steps=500)
    value_2, u_2 = power_iteration(A - value_1 * np.outer(u_1, u_1), steps=500)
    return [(value_1, u_1), (value_2, u_2)]


# --8<-- [end:matrix-on-vector]

ANGLES = list(range(0, 360, 15))


@explorer("matrix-on-vector")
def matrix_explorer() -> Explorer:
    cx, cy, unit = 180, 195, 38  # the origin, and pixels per unit
    at = lambda x, y: (cx + unit * x, cy - unit * y)  # noqa: E731 - plane to picture
    circle = [at(np.cos(t), np.sin(t)) for t in np.linspace(0, 2 * np.pi, 73)]
    ellipse = [at(*matrix_on_vector(a)[1]) for a in np.linspace(0, 360, 73)]
    eigen = eigen_directions()

    def draw(angle: str) -> str:
        v, Av, length, cos = matrix_on_vector(float(angle))
        body = [line(*at(-4, 0), *at(4, 0)), line(*at(0, -3.6), *at(0, 3.6))]
        body.append(polyline(circle, cls="xp-line xp-axis"))
        body.append(polyline(ellipse, cls="xp-line xp-1"))
        for value, u in eigen:
            body.append(line(*at(*(-4 * u)), *at(*(4 * u)), dashed=True))
            x, y = at(*(3.3 * u * (1 if u[1] >= 0 else -1)))
            body.append(text(x, y - 4, f"λ = {num(value, 2)}", cls="xp-ink", value=num(value), size=12))
        body.append(arrow(*at(0, 0), *at(*v), cls="xp-0"))
        body.append(arrow(*at(0, 0), *at(*Av), cls="xp-2"))
        marks = [(v[0], "v x"), (v[1], "v y"), (Av[0], "A v x"), (Av[1], "A v y"), (length, "|A v|"), (cos, "cos")]
        body += [f'<desc data-value="{num(x)}">{what} = {num(x)}</desc>' for x, what in marks]
        body.append(
            text(
                10,
                18,
                f"v = ({num(v[0], 2)}, {num(v[1], 2)})   A v = ({num(Av[0], 2)}, {num(Av[1], 2)})",
                anchor="start",
            )
        )
        only = abs(abs(cos) - 1) < 1e-9
        verdict = f"only stretched: A v = {num(length, 2)} v" if only else f"turned: cos(v, A v) = {num(cos, 3)}"
        body.append(text(10, 36, f"|A v| = {num(length, 3)}, {verdict}", anchor="start"))
        return svg(360, 345, f"The vector at {float(angle):g} degrees and its image under A", body)

    control = slider("angle", "Angle of v", ANGLES, 30, lambda a: f"{a:g} degrees")
    caption = "A = [[2, 1], [1, 2]] maps the unit circle to an ellipse; the dashed lines are its eigenvectors."
    return build("matrix-on-vector", caption, [control], draw)


def pca_embeddings() -> None:
    """The page's example: the eigenvectors of a covariance matrix find the two directions the data varies along. It prints what the page shows; the page's block is this body."""
    # --8<-- [start:pca-embeddings]
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
    Sigma = X_centred.T @ X_centred / n  # (8, 8), symmetric
    same = np.allclose(Sigma, np.cov(X, rowvar=False, ddof=0))
    print("covariance:", Sigma.shape, " symmetric:", np.allclose(Sigma, Sigma.T), " same as np.cov:", same)

    values, vectors = np.linalg.eigh(Sigma)  # ascending order
    values, vectors = values[::-1], vectors[:, ::-1]  # largest first
    print("eigenvalues (variance along each axis):", np.round(values, 3))
    explained = values / values.sum()
    print("share of the variance:", np.round(explained, 3))
    print(f"the first 2 components explain {explained[:2].sum():.1%}")

    # The top component, by power iteration, agrees with eigh (up to the sign of the vector).
    top_value, top_vector = power_iteration(Sigma)
    print("power iteration:", round(top_value, 6), " eigh:", round(float(values[0]), 6))
    print("same direction:", np.isclose(abs(top_vector @ vectors[:, 0]), 1.0))

    # Did PCA find the hidden directions? Each principal axis lies in their span.
    in_span = np.linalg.norm(directions.T @ vectors[:, :2], axis=0)
    print("length of the top 2 axes inside the hidden plane:", np.round(in_span, 3))

    # Project every embedding onto the top 2 axes: 8 numbers -> 2 numbers per vector.
    projected = X_centred @ vectors[:, :2]
    print("projected:", projected.shape)
    # --8<-- [end:pca-embeddings]
