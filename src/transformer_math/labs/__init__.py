r"""The checks of the guide's labs: hidden cases, hidden references, and a guard against shortcuts.

Each lab of the guide (``docs/labs/``) is a notebook whose exercises the learner fills in; its checks live
here, one module per lab (``transformer_math.labs.softmax``, ...), so that no expected value sits in a
cell the learner sees. A lab's module gives the notebook one function, ``check``, which prints one line per
call, beginning ``Correct``, ``Wrong`` or ``Not yet``:

>>> import numpy as np
>>> from transformer_math.labs.softmax import check
>>> def softmax(x):
...     x = np.asarray(x, dtype=float)
...     e = np.exp(x - np.max(x, axis=-1, keepdims=True))
...     return e / np.sum(e, axis=-1, keepdims=True)
>>> check("softmax", softmax)
Correct: softmax - 13 hidden cases

The shared machinery: ``guard`` (the library refused while the learner's code runs),
``isolation`` (the function run alone: no worker thread or process of the notebook's), ``timing`` (a work
budget on a wide case) and ``trace`` (its opcode trace: the loops exercise, a budget of Python steps),
``cases`` (seeded hidden cases), ``diagnose`` (what a
failure says), ``runner`` (the checks of functions), ``answers`` (of predictions and computed values) and
``hand`` (of numbers worked by hand). The package needs NumPy only.
"""

__all__: list[str] = []
