"""The build's one cache (tools/cache.py): a value is made again exactly when a file it read has changed."""

from __future__ import annotations

import pytest

from tools import cache, chapters
from tools.cache import ROOT, Cache, files_opened, module_sources


def test_a_value_misses_when_a_file_it_read_changes(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "CACHE_DIR", tmp_path / "cache")
    monkeypatch.setattr(cache, "ROOT", tmp_path)
    read, other = tmp_path / "read.txt", tmp_path / "other.txt"
    read.write_text("one")
    other.write_text("two")
    store = Cache("things", salt="v1")
    assert store.get("item") is None
    store.put("item", {"answer": 42}, [read])
    assert store.get("item") == {"answer": 42}
    other.write_text("changed")  # a file it did not read
    assert store.get("item") == {"answer": 42}
    read.write_text("edited")
    assert store.get("item") is None
    store.put("item", [1, 2], [read])
    assert Cache("things", salt="v2").get("item") is None, "another salt (a package's version) misses"
    read.unlink()
    assert store.get("item") is None, "a deleted file misses"


def test_module_sources_follow_imports_to_the_defining_module():
    matrices = module_sources("snippets.part_1.matrices")
    assert ROOT / "snippets" / "part_1" / "matrices.py" in matrices
    assert ROOT / "tools" / "figures.py" in matrices
    assert not any(path.parent.name == "transformer_math" for path in matrices), "it draws with NumPy alone"
    softmax_page = module_sources("snippets.part_2.softmax")
    library = ROOT / "src" / "transformer_math"
    assert {library / "softmax.py", library / "checks.py"} <= softmax_page  # softmax and what it imports
    assert library / "optim.py" not in softmax_page
    # training.py imports `forward` from the transformer module: that module and what it imports count
    training = module_sources("snippets.part_4.training")
    assert {library / "attention.py", library / "optim.py", library / "softmax.py", library / "stats.py"} <= training
    assert all(path.suffix == ".py" and ".venv" not in path.parts for path in training)


def test_files_opened_records_the_data_a_computation_reads():
    from transformer_math.data import load_text

    with files_opened() as opened:
        load_text("aesop")
    assert ROOT / "src" / "transformer_math" / "data" / "aesop.txt" in opened
    with files_opened() as nothing:
        pass
    assert not nothing


def test_every_chapter_module_names_its_page():
    pages = {path.relative_to(ROOT / "docs").as_posix() for path in (ROOT / "docs").rglob("*.md")}
    for module in chapters.modules():
        assert chapters.page_of(module) in pages, f"{module} mirrors no page of docs/"
        assert chapters.module_of(chapters.page_of(module)) == module


@pytest.mark.parametrize("kind", ["figures", "explorers"])
def test_chapter_results_are_traced(kind, monkeypatch, tmp_path):
    """``computed`` stores each chapter's value with the files its module imports and opens."""
    monkeypatch.setattr(cache, "CACHE_DIR", tmp_path)
    monkeypatch.setattr(chapters, "modules", lambda: ["snippets.part_1.matrices"])
    compute = {"figures": "tools.figures:chapter_svgs", "explorers": "tools.explorers:chapter_explorers"}[kind]
    values = chapters.computed(kind, compute)
    stored = (tmp_path / kind / "snippets.part_1.matrices.json").read_text()
    assert '"snippets/part_1/matrices.py"' in stored
    expected = {"linear-map-grid.light", "linear-map-grid.dark"} if kind == "figures" else set()
    assert set(values["snippets.part_1.matrices"]) == expected
