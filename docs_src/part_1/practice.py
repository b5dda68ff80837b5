"""What docs/part-1/practice.md includes: its longer example, shown on the page and run by the page's test."""

from __future__ import annotations


def matrix_operations() -> None:
    """The page's example: every matrix operation of Part I on one pair of matrices. It prints what the page shows; the page's block is this body."""
    # --8<-- [start:matrix-operations]
    import numpy as np

    A = np.array(
        [
            [1, 2],
            [3, 4],
        ]
    )

    B = np.array(
        [
            [5, 6],
            [7, 8],
        ]
    )

    print("Addition:\n", A + B)

    print("Subtraction:\n", A - B)

    print("Element-wise Multiplication:\n", A * B)

    print("Matrix Multiplication:\n", A @ B)

    print("Transpose:\n", A.T)
    # --8<-- [end:matrix-operations]
