"""After a build, an edit makes exactly the chapters that read the edited file draw again (tools/cache.py).

An edit is simulated: the cache is asked with one file's hash changed, so no file of the repository is touched."""

from __future__ import annotations

import pytest

from tools import cache, chapters

LIBRARY = "src/transformer_math/"


def misses(kind: str, edited: str, monkeypatch) -> set[str]:
    real = cache.file_hash
    monkeypatch.setattr(cache, "file_hash", lambda path: "edited" if path == cache.ROOT / edited else real(path))
    store = cache.Cache(kind, salt=_salt(kind))
    return {module for module in chapters.modules() if store.get(module) is None}


def _salt(kind: str) -> str:
    from importlib import metadata

    return f"matplotlib {metadata.version('matplotlib')}" if kind == "figures" else ""


@pytest.mark.parametrize("kind", ["figures", "explorers"])
def test_a_warm_cache_draws_nothing(kind, built_site, monkeypatch):
    assert misses(kind, "README.md", monkeypatch) == set()


@pytest.mark.parametrize("kind", ["figures", "explorers"])
def test_editing_a_chapter_module_redraws_that_chapter_only(kind, built_site, monkeypatch):
    assert misses(kind, "snippets/part_2/softmax.py", monkeypatch) == {"snippets.part_2.softmax"}


def test_editing_the_fables_redraws_the_fables_figures_only(built_site, monkeypatch):
    # the chapters that train on the fables: Part II's bigram model and the training chapter (the ladder and the
    # model that writes read Shakespeare, the block's feed-forward measurement a task of sums)
    readers = {"snippets.part_2.practice", "snippets.part_4.training"}
    assert misses("figures", LIBRARY + "data/aesop.txt", monkeypatch) == readers
    assert misses("explorers", LIBRARY + "data/aesop.txt", monkeypatch) == set()


@pytest.mark.parametrize("kind", ["figures", "explorers"])
def test_editing_softmax_redraws_what_depends_on_it(kind, built_site, monkeypatch):
    dependent = {
        module for module in chapters.modules() if cache.ROOT / LIBRARY / "softmax.py" in cache.module_sources(module)
    }
    assert {"snippets.part_2.softmax", "snippets.part_4.attention", "snippets.part_4.training"} <= dependent
    assert "snippets.part_1.matrices" not in dependent
    assert misses(kind, LIBRARY + "softmax.py", monkeypatch) == dependent
