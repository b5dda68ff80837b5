"""A plain-text reading of a TeX formula, for the search index (hooks/search_index.py): Material's search
shows a snippet of the text around a match, and a formula left out of it leaves a hole in the sentence."""

from __future__ import annotations

import html
import re
import unicodedata

SYMBOLS = {
    "sum": "∑",
    "prod": "∏",
    "sqrt": "√",
    "cdot": "·",
    "times": "×",
    "top": "ᵀ",
    "infty": "∞",
    "to": "→",
    "leftarrow": "←",
    "le": "≤",
    "leq": "≤",
    "ge": "≥",
    "geq": "≥",
    "approx": "≈",
    "ne": "≠",
    "neq": "≠",
    "partial": "∂",
    "nabla": "∇",
    "in": "∈",
    "odot": "⊙",
    "lVert": "‖",
    "rVert": "‖",
    "mid": "|",
    "pm": "±",
    "ldots": "…",
    "dots": "…",
    "cdots": "⋯",
    "ell": "ℓ",
    "varepsilon": "ε",
    "lambda": "λ",  # Unicode spells it LAMDA
    "Lambda": "Λ",
}
WORDS = {"log", "ln", "exp", "max", "min", "arg", "argmax", "sin", "cos", "tanh", "det", "lim"}


def formula_text(tex: str) -> str:
    """A plain reading of a formula for the index: commands as symbols or words, fractions as a/b."""
    tex = re.sub(r"^\\[(\[]|\\[)\]]$", "", html.unescape(tex).strip())
    tex = re.sub(r"\\(?:begin|end)\{[^}]*\}", " ", tex)
    tex = re.sub(r"\\(?:left|right|[Bb]ig+[lr]?)\b", "", tex)
    tex = re.sub(r"\\([dt]?frac)\s*(\w)\s*(\w)", r"\\\1{\2}{\3}", tex)  # \frac12 -> \frac{1}{2}
    tex = re.sub(r"\\mathbb\{R\}", "ℝ", tex)
    for _ in range(3):  # groups inside groups: e^{z_i} -> e^(z_i), then fractions -> (a)/(b)
        tex = re.sub(r"([_^])\{([^{}])\}", r"\1\2", tex)
        tex = re.sub(r"([_^])\{([^{}]*)\}", r"\1(\2)", tex)
        tex = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"√(\1)", tex)
        tex = re.sub(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)", tex)

    def command(match: re.Match) -> str:
        name = match.group(1)
        if name in SYMBOLS or name in WORDS:
            return SYMBOLS.get(name, name)
        case = "CAPITAL" if name[0].isupper() else "SMALL"
        try:
            return unicodedata.lookup(f"GREEK {case} LETTER {name.upper()}")
        except KeyError:
            return ""  # \operatorname, \text, \left, \mathbf, ...: their argument (in braces) is the text

    tex = re.sub(r"\\([A-Za-z]+)", command, tex)
    tex = re.sub(r"\\\\|\\[,;:! ]|&", " ", tex).replace("{", "").replace("}", "").replace("\\", "")
    return re.sub(r"\s+([,.;:])", r"\1", re.sub(r"\s+", " ", tex)).strip()
