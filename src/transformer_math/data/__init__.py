r"""Small public-domain texts shipped with the library, to train the tiny Transformer on real words.

The texts are UTF-8 files inside this package, read with ``importlib.resources``, so they are there
wherever the library is installed, with no download.

* ``"aesop"`` -- eight fables of Aesop in George Fyler Townsend's translation (1867), from "The Wolf
  And The Lamb" to "The Cock and the Jewel", as in the Project Gutenberg edition (eBook #21), line breaks
  included: 4,509 characters. The translation is in the public domain.

Example
-------
>>> from transformer_math.data import load_text
>>> text = load_text("aesop")
>>> len(text), text[:21]
(4509, 'The Wolf And The Lamb')
"""

from __future__ import annotations

from importlib import resources

__all__ = ["TEXTS", "load_text"]

# --8<-- [start:load_text]
TEXTS = ("aesop",)  # the texts the library ships, each a file NAME.txt in the package transformer_math.data


def load_text(name="aesop"):
    r"""The text ``name`` shipped with the library, as one string.

    Parameters
    ----------
    name : str, default "aesop"
        One of ``TEXTS``.

    Returns
    -------
    str
        The whole text, newlines included.

    Examples
    --------
    >>> from transformer_math.data import load_text
    >>> text = load_text()
    >>> print(text[:69])
    The Wolf And The Lamb
    <BLANKLINE>
    WOLF, meeting with a Lamb astray from the fold
    >>> len(set(text))    # distinct characters
    57
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, one of {', '.join(TEXTS)}; got {name!r}")
    if name not in TEXTS:
        raise ValueError(f"unknown text {name!r}; the library ships {', '.join(TEXTS)}")
    return resources.files("transformer_math.data").joinpath(f"{name}.txt").read_text(encoding="utf-8")


# --8<-- [end:load_text]
