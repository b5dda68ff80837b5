r"""Numbers worked out by hand: ``HandNumber`` compares one with a hash of the answer, so that the answer is
neither in the check cells nor in the checks' module nor in a failure message. The folded solution under the
exercise shows it, by design, as it shows every exercise's solution.

Example
-------
>>> from transformer_math.labs.hand import HandNumber, digest
>>> third = HandNumber(digest("third", "0.3333"))
>>> third.run("third", 1 / 3)
('Correct', [])
>>> third.run("third", 0.3)
('Wrong', ['0.3000 is not it (to 4 decimals)'])
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field

import numpy as np

from transformer_math.labs.runner import NOT_YET, holds_ellipsis

SALT = b"transformer-math labs"
# A learner's tries come a few seconds apart; a loop that calls the check as an answer key makes thousands. Past
# FREE_TRIES different wrong answers to one number, the check judges one answer each PAUSE seconds.
FREE_TRIES = 12
PAUSE = 10.0
_tries: dict[str, set[str]] = {}  # the number's name -> the wrong answers given to it, in this process
_last: dict[str, float] = {}  # the number's name -> when its check last judged, past the free tries


def digest(name: str, text: str) -> str:
    """The hash of an answer, slowed down a little: it keeps the answer out of sight, but a table of every
    4-decimal number of a likely range (20,000 from 0 to 2) takes seconds. So does working the number out in the
    cell; a check cannot tell either from the work done by hand (``docs/labs/index.md`` says so)."""
    return hashlib.pbkdf2_hmac("sha256", f"{name}={text}".encode(), SALT, 4000).hex()[:24]


def hand_text(value, decimals: int) -> list[str]:
    """The texts a number worked by hand may round to: its value to ``decimals``, and one unit either side."""
    unit = 10.0**-decimals
    if isinstance(value, (list, tuple, np.ndarray)):
        values = [float(v) for v in np.asarray(value, dtype=float).reshape(-1)]
        options = [[f"{v + k * unit:.{decimals}f}" for k in (0, -1, 1)] for v in values]
        texts = [""]
        for choices in options:  # every combination, the value itself first
            texts = [f"{t},{c}" if t else c for t in texts for c in choices]
        return texts[:27]
    v = float(value)
    return [f"{v + k * unit:.{decimals}f}" for k in (0, -1, 1)]


@dataclass(frozen=True)
class HandNumber:
    """A number (or a few) worked out by hand, compared with the hash of the answer at ``decimals`` decimals.

    ``slips`` maps the hash of a typical wrong answer to what it tells about the slip. Past ``FREE_TRIES``
    different wrong answers, one answer is judged each ``PAUSE`` seconds: a loop over candidates meets a wait."""

    answer: str  # the hash, from digest(name, text)
    decimals: int = 4
    size: int = 1
    slips: dict[str, str] = field(default_factory=dict)

    def run(self, name: str, value) -> tuple[str, list[str]]:
        if holds_ellipsis(value):
            return "Not yet", [NOT_YET]
        try:
            array = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            return "Wrong", [f"{name} should be {'a number' if self.size == 1 else f'{self.size} numbers'}"]
        if array.size != self.size or not np.all(np.isfinite(array)):
            return "Wrong", [f"{name} should be {'one finite number' if self.size == 1 else f'{self.size} numbers'}"]
        shown = value if self.size > 1 else array.reshape(-1)[0]
        texts = hand_text(shown if self.size > 1 else float(shown), self.decimals)
        wrong = _tries.setdefault(name, set())
        if len(wrong) >= FREE_TRIES and texts[0] not in wrong:
            now = time.monotonic()
            if now - _last.get(name, -PAUSE) < PAUSE:
                return "Not yet", [
                    f"{len(wrong)} different answers so far: past {FREE_TRIES}, this check judges one answer each "
                    f"{PAUSE:.0f} seconds (it is not an answer key to search). Work it out from the hint"
                ]
            _last[name] = now
        if any(digest(name, text) == self.answer for text in texts):
            return "Correct", []
        wrong.add(texts[0])
        slip = self.slips.get(digest(name, texts[0]))
        said = ", ".join(f"{v:.{self.decimals}f}" for v in array.reshape(-1))
        return "Wrong", [f"{said} is not it (to {self.decimals} decimals)" + (f": {slip}" if slip else "")]
