"""What docs/part-3/chain-rule.md draws: Olah's graph of e = (a + b)(b + 1), with the slopes on its arrows.

A function registered with ``@figure`` is drawn by ``hooks/figures.py`` as ``figures/NAME.light.svg`` and
``figures/NAME.dark.svg``.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from tools.figures import figure


def paths_graph_values(a: float = 2.0, b: float = 1.0) -> tuple[dict[str, float], dict[str, float], dict]:
    """The graph's values, each value's derivative ∂e/∂(value), and each arrow's local derivative, all by
    ``Value.backward``: the local slope of an arrow parent -> child is the parent's grad after the child's
    backward, as every parent here reaches its child by that one arrow only."""
    from transformer_math.autograd import Value

    def build():
        va, vb = Value(a), Value(b)
        vc, vd = va + vb, vb + 1
        return {"a": va, "b": vb, "c": vc, "d": vd, "e": vc * vd}

    nodes = build()
    nodes["e"].backward()
    data = {name: v.data for name, v in nodes.items()}
    grads = {name: v.grad for name, v in nodes.items()}
    slopes = {}
    for child, parents in {"c": "ab", "d": "b", "e": "cd"}.items():
        fresh = build()
        fresh[child].backward()
        slopes.update({(parent, child): fresh[parent].grad for parent in parents})
    return data, grads, slopes


@figure("paths-graph")
def paths_graph() -> Figure:
    """e = (a + b)(b + 1) at a = 2, b = 1: each arrow carries its local derivative, each value its ∂e/∂(value),
    the sum over its paths of the product of the slopes along each."""
    from matplotlib.patches import FancyBboxPatch

    data, grads, slopes = paths_graph_values()
    where = {"a": (0.0, 1.7), "b": (0.0, 0.0), "c": (3.7, 1.7), "d": (3.7, 0.0), "e": (7.4, 0.85)}
    formula = {"a": "a", "b": "b", "c": "c = a + b", "d": "d = b + 1", "e": "e = c·d"}
    # where each arrow's slope sits, off its midpoint so that it does not touch the arrow
    offset = {("a", "c"): (0, 0.2), ("b", "c"): (-0.28, 0.05), ("b", "d"): (0, 0.2), ("c", "e"): (0.2, 0.2)}
    offset[("d", "e")] = (0.2, -0.2)

    fig = Figure(figsize=(6.8, 2.6))
    ax = fig.subplots()
    half_w, half_h = 1.3, 0.38
    for (parent, child), slope in slopes.items():
        (px, py), (cx, cy) = where[parent], where[child]
        ax.annotate(
            "",
            xy=(cx - half_w, cy),
            xytext=(px + half_w, py),
            arrowprops={"arrowstyle": "->", "color": "C5", "lw": 1.3},
        )
        dx, dy = offset[parent, child]
        mx, my = (px + half_w + cx - half_w) / 2 + dx, (py + cy) / 2 + dy
        ax.text(mx, my, f"{slope:g}", ha="center", va="center", fontsize=14, color="C1", fontweight="bold")
    for name, (x, y) in where.items():
        ax.add_patch(
            FancyBboxPatch(
                (x - half_w, y - half_h), 2 * half_w, 2 * half_h, boxstyle="round,pad=0.02", fill=False, edgecolor="C0"
            )
        )
        ax.text(x, y + 0.15, f"{formula[name]} = {data[name]:g}", ha="center", va="center", fontsize=13)
        ax.text(x, y - 0.17, f"∂e/∂{name} = {grads[name]:g}", ha="center", va="center", fontsize=13, color="C2")
    ax.set_xlim(-1.4, 8.8)
    ax.set_ylim(-0.5, 2.2)
    ax.set_aspect("equal")
    ax.axis("off")
    paths = " + ".join(f"{slopes['b', mid]:g}·{slopes[mid, 'e']:g}" for mid in "cd")  # b's two paths to e
    ax.set_title(f"∂e/∂b = {paths} = {grads['b']:g}: a product per path, paths add", fontsize=13)
    return fig
