"""Everything docs/part-4/walkthrough.md draws: the block it walks through, as a map of its steps."""

from __future__ import annotations

from matplotlib.figure import Figure

from snippets.part_4.block import block_diagram
from tools.figures import figure


@figure("walkthrough-map")
def walkthrough_map() -> Figure:
    """The block diagram of docs/part-4/block.md, drawn with the walkthrough's own shapes (n = 4, d = 8,
    d_ff = 32, V = 5): one figure, so the map and the chapter that derives it cannot drift apart."""
    return block_diagram()
