"""The chapters' modules: ``snippets/`` mirrors ``docs/``, one module for what a page draws or includes.

``docs/part-4/training.md`` has its figures, its explorer and its longer examples in
``snippets/part_4/training.py`` (a hyphen in a page's name is an underscore in its module's). The hooks
compute a chapter's figures and explorers through :func:`computed`, which keeps each chapter's results in
one :class:`~tools.cache.Cache` item, made again only when a file the chapter's module imports or opens has
changed, and computes what is missing in fresh Python processes, two at a time: a fresh process runs the code
as it is now (``mkdocs serve`` may have imported older code), and two use both cores of a small machine.
"""

from __future__ import annotations

import importlib
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tools.cache import ROOT, Cache, files_opened, module_sources

SOURCES = ROOT / "snippets"


def modules() -> list[str]:
    """Every chapter module, as an importable name (``snippets.part_4.training``)."""
    return sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in SOURCES.rglob("*.py")
        if not path.name.startswith("_")
    )


def module_of(page: str) -> str:
    """``part-4/multi-head.md`` (a page's path under docs/) -> ``snippets.part_4.multi_head``."""
    return "snippets." + page.removesuffix(".md").replace("-", "_").replace("/", ".")


def path_of(module: str) -> Path:
    return ROOT / (module.replace(".", "/") + ".py")


def page_of(module: str) -> str:
    """``snippets.part_4.multi_head`` -> ``part-4/multi-head.md``."""
    return module.removeprefix("snippets.").replace(".", "/").replace("_", "-") + ".md"


def import_all() -> None:
    """Import every chapter module, which registers its figures and explorers."""
    for module in modules():
        importlib.import_module(module)


def registered(registry: dict[str, Callable], module: str) -> dict[str, Callable]:
    """The entries of a registry (figures, explorers) that ``module`` defines, after importing it."""
    importlib.import_module(module)
    return {name: function for name, function in registry.items() if function.__module__ == module}


def computed(kind: str, compute: str, salt: str = "") -> dict[str, dict]:
    """``{module: compute(module)}`` for every chapter module, from the cache ``kind`` where it is still valid.

    ``compute`` names a function, ``"tools.figures:chapter_svgs"``, returning JSON-able values; it is imported
    only in the processes that compute (so a build whose cache is valid never imports matplotlib)."""
    cache = Cache(kind, salt)
    results = {module: cache.get(module) for module in modules()}
    missing = [module for module, value in results.items() if value is None]
    if missing:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(2, len(missing)), mp_context=context) as pool:
            for module, (value, files) in zip(missing, pool.map(_traced, [compute] * len(missing), missing)):
                cache.put(module, value, files)
                results[module] = value
    return results


def _traced(compute: str, module: str) -> tuple[dict, list[Path]]:
    """Run ``compute(module)`` and return its value with the files it depends on: the sources its module
    imports and every file of the repository it opened."""
    where, name = compute.split(":")
    with files_opened() as opened:
        value = getattr(importlib.import_module(where), name)(module)
    return value, sorted(module_sources(module) | opened)
