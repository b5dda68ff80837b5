"""The build's one cache: a value is computed again only when a file it read has changed.

Each value is kept in ``.cache/NAME/ITEM.json`` beside the list of files it was made from, each with the
hash of its content. Those files are found, not listed by hand: :func:`module_sources` follows a module's
imports through the repository (``from transformer_math.transformer import forward`` counts the module
that defines ``forward``, and what that module imports, and so on), and :func:`files_opened` records every
file of the repository a computation opens (``transformer_math/data/aesop.txt``, say). So editing one
chapter's module recomputes that chapter, editing ``softmax.py`` recomputes what imports it, and editing a
data file recomputes what read it; nothing else.

>>> from tools.cache import ROOT, module_sources
>>> sorted(path.relative_to(ROOT).as_posix() for path in module_sources("transformer_math.softmax"))
['src/transformer_math/__init__.py', 'src/transformer_math/checks.py', 'src/transformer_math/softmax.py']
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib
import importlib.util
import json
import re
import sys
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE_DIR = ROOT / ".cache"
NOT_SOURCES = [ROOT / ".venv", CACHE_DIR, ROOT / "node_modules", ROOT / ".git"]


class Cache:
    """Values of one kind (``name``), each valid while the files it read are unchanged.

    ``salt`` is what else the values depend on, such as a package's version: a different salt misses.
    Values are anything JSON can hold.
    """

    def __init__(self, name: str, salt: str = "") -> None:
        self.folder = CACHE_DIR / name
        self.salt = salt

    def get(self, item: str):
        """The value stored for ``item``, or None when there is none or a file it read has changed."""
        path = self._path(item)
        if not path.exists():
            return None
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored["salt"] != self.salt or any(
            file_hash(ROOT / name) != digest for name, digest in stored["files"].items()
        ):
            return None
        return stored["value"]

    def put(self, item: str, value, files: Iterable[Path]) -> None:
        """Store ``value`` for ``item``, made from ``files``; replaces what was stored."""
        read = {path.resolve().relative_to(ROOT).as_posix(): file_hash(path) for path in files}
        self.folder.mkdir(parents=True, exist_ok=True)
        partial = self._path(item).with_suffix(".part")
        partial.write_text(json.dumps({"salt": self.salt, "files": dict(sorted(read.items())), "value": value}))
        partial.replace(self._path(item))  # never half a value, even if the build is killed

    def _path(self, item: str) -> Path:
        return self.folder / (re.sub(r"[^A-Za-z0-9_.-]", "_", item) + ".json")


def file_hash(path: Path) -> str:
    """The hash of a file's content; a missing file hashes as "missing" (so a value made from it misses)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except FileNotFoundError:
        return "missing"


def in_repository(path: Path) -> bool:
    """True for a file of this repository (not of the virtual environment, the cache or node_modules)."""
    path = path.resolve()
    return ROOT in path.parents and not any(folder == path or folder in path.parents for folder in NOT_SOURCES)


@cache
def module_sources(module: str) -> frozenset[Path]:
    """The repository's Python files that ``module`` runs when imported: its own, and those of every module of
    the repository it imports, recursively. Modules outside the repository (NumPy, matplotlib) are left out."""
    found: set[Path] = set()
    pending = [module]
    while pending:
        name = pending.pop()
        path = _file_of(name)
        if path is None or path in found:
            continue
        found.add(path)
        pending += _imported_modules(name, path)
    return frozenset(found)


def file_sources(path: Path) -> frozenset[Path]:
    """:func:`module_sources` for a script that is not imported as a module (a lab): the file itself and the
    repository's modules it imports, recursively."""
    found = {path.resolve()}
    for name in _imported_modules("", path):
        found |= module_sources(name)
    return frozenset(found)


def _file_of(module: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    path = Path(spec.origin).resolve()
    return path if in_repository(path) else None


def _imported_modules(module: str, path: Path) -> list[str]:
    """Every module ``module`` imports, anywhere in its file; for ``from M import name`` the module that defines
    ``name`` (a package's ``__init__`` re-exports names from its modules), and the packages on the way."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = importlib.util.resolve_name("." * node.level + base, package)
            names.append(base)
            names += [_defining_module(base, alias.name) for alias in node.names if alias.name != "*"]
    parents = [name.rsplit(".", k)[0] for name in names for k in range(1, name.count(".") + 1)]
    return [name for name in names + parents if name]


def _defining_module(module: str, name: str) -> str:
    submodule = f"{module}.{name}"
    if _file_of(module) is None:  # outside the repository: not followed
        return ""
    with contextlib.suppress(ImportError, ValueError):
        if importlib.util.find_spec(submodule) is not None:
            return submodule
    value = getattr(importlib.import_module(module), name, None)
    return getattr(value, "__module__", None) or module


_recording: list[set[Path]] = []


def _audit(event: str, args: tuple) -> None:
    if event == "open" and _recording and isinstance(args[0], (str, bytes, Path)):
        path = Path(args[0].decode() if isinstance(args[0], bytes) else args[0])
        if path.suffix != ".pyc" and in_repository(path) and path.is_file():  # not Python's own bytecode cache
            for opened in _recording:
                opened.add(path.resolve())


@contextlib.contextmanager
def files_opened() -> Iterator[set[Path]]:
    """Record the repository's files opened inside the block (an audit hook; data files such as the fables)."""
    if not getattr(sys, "_transformer_math_audit", False):
        sys.addaudithook(_audit)  # cannot be removed: installed once, idle while nothing records
        sys._transformer_math_audit = True
    opened: set[Path] = set()
    _recording.append(opened)
    try:
        yield opened
    finally:
        _recording.remove(opened)
