"""Run one write or build in this process and SIGKILL it at a chosen stage (helper of the crash tests).

    python crash_script.py write SOURCE TARGET STAGE   write_dataset(TARGET, the records of the built folder SOURCE)
    python crash_script.py build RAW DATA STAGE JOBS OPTIONS_JSON   build_dataset("ecbplus", RAW, DATA, JOBS, options)

A stage patches the function that runs at that moment so that its Nth call kills this process (no test hooks in
the product code). The kill is SIGKILL: no ``finally``, no ``atexit``, exactly like ``kill -9`` or the OOM killer.
:func:`run_script`, :func:`files_bytes` and :func:`visible` are the test side.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

import ucdcr
from ucdcr.io import output_folder
from ucdcr.pipeline import write as writer

SCRIPT = Path(__file__).resolve()


def child_env() -> dict[str, str]:
    """The environment of a child process that imports this ucdcr and the repo's tests."""
    paths = [str(Path(ucdcr.__file__).resolve().parent.parent), str(SCRIPT.parent.parent.parent)]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """``command`` in a child process (see :func:`child_env`), output captured in files, not pipes: a grandchild
    that outlives the child (a lingering pool worker) would keep a pipe open and this call waiting."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        result = subprocess.run(
            command, check=False, env=child_env(), stdout=out, stderr=err, text=True, timeout=300, **kwargs
        )
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(result.args, result.returncode, out.read(), err.read())


def run_script(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, str(SCRIPT), *args], **kwargs)


def files_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def visible(data: Path) -> list[str]:
    """What a dataset listing sees: every entry whose name does not start with "."."""
    return sorted(p.name for p in data.iterdir() if not p.name.startswith("."))


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def kill_on(owner: Any, name: str, call: int, when: str) -> None:
    """Kill this process ``when`` ("before"/"after") the ``call``-th call of ``owner.name``."""
    original = getattr(owner, name)
    calls = 0

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == call and when == "before":
            die()
        result = original(*args, **kwargs)
        if calls == call and when == "after":
            die()
        return result

    setattr(owner, name, wrapper)


def half_then_die(data: bytes, path: Path) -> None:
    """Leave a half-written file behind, as a kill in the middle of writing it would."""
    with open(path, "wb") as handle:
        handle.write(data[: len(data) // 2])
    die()


def kill_mid_parquet() -> None:
    """Die once the first row group is written: the file has no footer yet."""
    kill_on(writer.ParquetStream, "_flush", 1, "after")


def no_exchange() -> None:
    output_folder.exchange = lambda first, second: False  # type: ignore[assignment]


WRITE_STAGES: dict[str, Callable[[], None]] = {
    "staging-created": lambda: kill_on(writer, "JsonListStream", 1, "before"),
    "mid-json": lambda: kill_on(writer.JsonListStream, "write", 2, "after"),
    "mid-parquet": kill_mid_parquet,
    "files-written": lambda: kill_on(output_folder, "_sync_tree", 1, "before"),
    "before-swap": lambda: kill_on(output_folder, "exchange", 1, "before"),
    "after-swap": lambda: kill_on(output_folder, "exchange", 1, "after"),
    "removing-old": lambda: kill_on(os, "unlink", 2, "before"),
    "first-rename": lambda: kill_on(os, "rename", 1, "before"),
    "fallback-between-renames": lambda: (no_exchange(), kill_on(os, "rename", 1, "after")),
    "fallback-after-renames": lambda: (no_exchange(), kill_on(os, "rename", 2, "after")),
    "fallback-complete": no_exchange,
    "complete": lambda: None,
}


def built_rows(source: Path) -> tuple[Callable[[str, str], list[dict]], list[dict], dict]:
    """The mention rows by split and kind, the document rows (in column batches of 1,000 rows) and the report of a
    built dataset folder, as the build passes them to the writer."""
    files = dict(writer.KIND_FILES)

    def mentions(split: str, kind: str) -> list[dict]:
        return list(json.loads((source / split / files[kind]).read_text(encoding="utf-8")))

    table = pq.read_table(source / "all_documents.parquet")
    documents = [table.slice(start, 1000).to_pydict() for start in range(0, table.num_rows, 1000)]
    report = json.loads((source / "build_report.json").read_text(encoding="utf-8"))
    return mentions, documents, report


def write(source: Path, target: Path, stage: str) -> None:
    rows = built_rows(source)
    WRITE_STAGES[stage]()
    writer.write_dataset(target, *rows)


def kill_during_parse(pids_file: Path) -> None:
    """After the first batch comes back from the pool: note the worker pids, then die."""
    from ucdcr.pipeline import build

    original = build.LocalExecutor.map

    def map_batches(*args: Any, **kwargs: Any) -> Any:
        for results in original(*args, **kwargs):
            pids = [child.pid for child in multiprocessing.active_children()]
            pids_file.write_text(json.dumps(pids), encoding="utf-8")
            die()
            yield results

    build.LocalExecutor.map = map_batches  # type: ignore[method-assign]
    build.DOCUMENTS_PER_BATCH = 1  # 5 documents -> 5 batches, so -j 2 really starts a pool


def hold_lock(ready: Path, go: Path) -> None:
    """Once the output folder is reserved (the reader runs after that): say so, and wait for the test's go."""
    from ucdcr.pipeline import build

    original = build.get

    def get(dataset_id: str) -> Any:
        spec = original(dataset_id)
        real_read = spec.reader

        def read(folder: Path, options: Any) -> Any:
            ready.write_text(str(os.getpid()), encoding="utf-8")
            while not go.exists():
                time.sleep(0.05)
            return real_read(folder, options)

        import dataclasses

        return dataclasses.replace(spec, reader=read)

    build.get = get


def run_build(raw: Path, data: Path, stage: str, jobs: int, options: dict) -> None:
    from ucdcr.pipeline.build import build_dataset

    if stage == "parse":
        kill_during_parse(data.parent / "workers.json")
    elif stage == "hold-lock":
        hold_lock(data.parent / "ready", data.parent / "go")
    elif stage != "complete":
        WRITE_STAGES[stage]()
    build_dataset("ecbplus", raw_dir=raw, data_dir=data, jobs=jobs, progress=False, options=options)


if __name__ == "__main__":
    command, first, second, stage_name = sys.argv[1:5]
    if command == "write":
        write(Path(first), Path(second), stage_name)
    else:
        run_build(Path(first), Path(second), stage_name, int(sys.argv[5]), json.loads(sys.argv[6]))
