"""The benchmark's results file when several processes add runs: each one re-reads the file under its lock, so no
run is lost, and no lock file is left behind; a new run replaces the run of its slot; a format 1 file is read."""

from __future__ import annotations

import json
import multiprocessing
from dataclasses import asdict
from pathlib import Path

from ucdcr.systems.framework.store import FORMAT, RESULTS_FILE, ResultStore, StoredRun, read_runs


def stored_run(key: str, dataset: str = "") -> StoredRun:
    """A run of its own slot (dataset named as the key) unless ``dataset`` is given."""
    means = [{"type": "joint", "settings": 1, "scores": {"F1_CONLL": 50.0}}]
    dataset = dataset or key
    return StoredRun(key, "head-lemma", "1", dataset, "subtopic", "in-domain", "", f"{dataset} val", "", means)


def test_a_store_opened_earlier_keeps_the_runs_another_store_added(tmp_path: Path) -> None:
    first, second = ResultStore(tmp_path), ResultStore(tmp_path)
    assert first.runs() == {} and second.runs() == {}  # both read the (missing) file before either writes
    first.put(stored_run("a"))
    second.put(stored_run("b"))
    assert sorted(read_runs(tmp_path / RESULTS_FILE)) == ["a", "b"]
    assert sorted(second.runs()) == ["a", "b"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [RESULTS_FILE]  # the lock file is gone


def _put_runs(cache_dir: Path, prefix: str, count: int) -> None:
    store = ResultStore(cache_dir)
    for i in range(count):
        store.put(stored_run(f"{prefix}{i:02d}"))


def test_two_processes_adding_runs_at_once_lose_none(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_put_runs, args=(tmp_path, prefix, 25)) for prefix in ("x", "y")]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
    assert [process.exitcode for process in processes] == [0, 0]
    assert len(read_runs(tmp_path / RESULTS_FILE)) == 50  # 25 + 25
    assert sorted(p.name for p in tmp_path.iterdir()) == [RESULTS_FILE]


def test_an_old_format_file_is_read_written_back_as_format_5_and_a_new_run_replaces_its_slot(
    tmp_path: Path,
) -> None:
    old = {**asdict(stored_run("old")), "key": "a-key-of-format-1"}
    (tmp_path / RESULTS_FILE).write_text(json.dumps({"format": "ucdcr-benchmark-results/1", "runs": [old]}))
    store = ResultStore(tmp_path)
    assert list(store.runs()) == ["a-key-of-format-1"]
    store.put(stored_run("other"))  # another slot: the old run stays
    assert sorted(read_runs(tmp_path / RESULTS_FILE)) == ["a-key-of-format-1", "other"]
    assert json.loads((tmp_path / RESULTS_FILE).read_text())["format"] == FORMAT == "ucdcr-benchmark-results/5"
    store.put(stored_run("new", dataset="old"))  # the old run's slot, another key: replaced
    assert sorted(read_runs(tmp_path / RESULTS_FILE)) == ["new", "other"]
