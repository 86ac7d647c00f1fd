"""The benchmark's results file: every run's scores, reused by a later ``ucdcr benchmark`` and by ``ucdcr report``.

One JSON file, ``<cache dir>/benchmark-results.json`` (the cache dir of :mod:`ucdcr.systems.framework.cache`)::

    {"format": "ucdcr-benchmark-results/5",
     "runs": [{"key": "<sha256>", "system": "pairwise", "version": "1", "dataset": "ecbplus", "level": "subtopic",
               "protocol": "ucdcr/subtopic", "setting": "in-domain", "fit_on": "ecbplus train",
               "tune_on": "ecbplus val", "seed": 0,
               "model": "<what the system learned>", "datasets": {"ecbplus": "<fingerprint>"},
               "machine": {"cpu": "AMD EPYC ...", "threads": 2, "python": "3.11.7", "ucdcr": "0.1.0"},
               "origin": "ucdcr.systems.reference.pairwise:Pairwise", "stored": "2026-12-04T10:22:31+00:00",
               "signature": "ucdcr:0.3.0|data:ecbplus@f7d79e41|split:test|protocol:ucdcr/subtopic|…",
               "means": [{"type": "joint", "settings": 43, "scores": {"F1_MUC": ..., "F1_CONLL": ...},
                          "units": {"kind": "values", "units": [...], ...}}, ...]}]}

``units`` per mean: what its confidence interval and paired comparisons resample (:mod:`ucdcr.scoring.bootstrap`).
``signature``: what the run's numbers were computed on and how (:mod:`ucdcr.analysis.signature`; a run stored before
format ``/5`` has none, and :func:`ucdcr.systems.framework.standings.run_signature` derives it from its fields).
``machine``: where the run was computed (:func:`machine`); two machines of one kind can differ by more than a point for
a trained system, so it is part of what a stored number means. ``origin``: what the system was run as
(:attr:`ucdcr.systems.framework.names.SystemSpec.origin`: the ``module:attribute`` given to ``--systems``, an entry
point, the class given to :func:`ucdcr.benchmark`); ``stored``: when the run was computed (UTC). Both say where a row of
``ucdcr report``'s leaderboard came from; a run stored before format ``/4`` has neither.

The key of a run (:meth:`ResultStore.key`) is the SHA-256 of everything that computed it: the keys' format
(:data:`KEY_FORMAT`), the seed, the system's name and identity
(:func:`ucdcr.systems.framework.identity.system_identity`: its code, version and configuration), the protocol (its
label, e.g. ``ucdcr/subtopic`` or ``standard/gold-topics``), setting, fit/tune/test datasets and splits, the content
fingerprints of those datasets (:func:`dataset_fingerprint`: SHA-256 of the mentions' content) and what the run computed
with beyond the code (:mod:`ucdcr.systems.framework.environment`): the lemmatiser's identity and, for a system that uses
the encoder, the encoder's (its files and libraries) and the hardware's. So a rebuilt dataset, an edited or reconfigured
system, another system of the same name or a new library version is never answered from an old run. A new run replaces
the stored run of the same system name, protocol, setting, splits, datasets and seed: the file holds the latest numbers
of each, the ones ``ucdcr report`` shows. A file of an older format is read, but none of its runs matches a key of
``/5``: formats before it fingerprinted the dataset files, not their content (and ``/1``, ``/2`` kept no units to
resample), so each is replaced as its system runs again. Runs are kept sorted by key; the file is rewritten
atomically after each run, under a lock (``.benchmark-results.json.lock``), with the runs other benchmark processes
added meanwhile: none is lost.

Nothing is removed by itself: a user system's runs stay (and ``ucdcr report`` shows them) until
:meth:`ResultStore.forget` removes every run of its name (``ucdcr benchmark --forget NAME``,
:func:`ucdcr.forget_benchmark_runs`), under the same lock.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ucdcr.errors import UcdcrError
from ucdcr.io.atomic import write_errors
from ucdcr.io.output_folder import exclusive
from ucdcr.schema import MENTIONS_PARQUET
from ucdcr.scoring.bootstrap import UnitData, unit_data_from_json
from ucdcr.systems.framework import adapter

if TYPE_CHECKING:
    from ucdcr.systems.framework.names import SystemSpec
    from ucdcr.systems.framework.runs import Run

RESULTS_FILE = "benchmark-results.json"
RESULTS_FORMAT = "ucdcr-results/1"
"""The format of a results file of measured runs (:mod:`ucdcr.report.results_file`; the shipped reference runs,
:func:`ucdcr.systems.framework.standings.shipped_runs`): entries of a commit and a stored run."""
PREDICTIONS_DIR = "predictions"
"""The folder of the cache dir that keeps every run's test predictions (``ucdcr benchmark --save-predictions``)."""
FORMAT = "ucdcr-benchmark-results/5"
KEY_FORMAT = FORMAT
"""The format in every key: ``/5`` fingerprints the datasets' content, so no older run matches a key."""
READABLE = (FORMAT, *(f"ucdcr-benchmark-results/{number}" for number in (4, 3, 2, 1)))
"""Formats read: runs of ``/1`` and ``/2`` never match a key (module docstring)."""


@dataclass(frozen=True)
class StoredRun:
    """One run's scores: ``means`` = per type ("joint", "event", "entity") the protocol's mean scores and their
    units; ``seed``: the system's seed; ``machine``: where it ran (:func:`machine`); ``origin``: what the system
    was run as; ``stored``: when (ISO 8601, UTC; :func:`now`); ``signature``: what its numbers mean
    (:mod:`ucdcr.analysis.signature`). None: stored before ucdcr recorded it."""

    key: str
    system: str
    version: str
    dataset: str
    level: str
    setting: str
    fit_on: str
    tune_on: str
    model: str
    means: list[dict[str, Any]]
    datasets: dict[str, str] | None = None
    protocol: str = "ucdcr/subtopic"
    seed: int = 0
    machine: dict[str, Any] | None = None
    origin: str | None = None
    stored: str | None = None
    signature: str | None = None
    timing: dict[str, float] | None = None
    """How long it took on its machine: ``fit`` seconds (the fit that served it, shared by the runs of that fit) and
    ``fit_mentions`` (the mentions of its fit and tune splits), ``predict`` seconds and ``test_mentions``: what a
    later benchmark's plan estimates its time from (:mod:`ucdcr.systems.framework.plan`)."""

    def score(self, kind: str = "joint", column: str = "F1_CONLL") -> float | None:
        """A mean score of one type (None when the dataset has no mention of that type)."""
        return next((mean["scores"][column] for mean in self.means if mean["type"] == kind), None)

    def units(self, kind: str = "joint") -> UnitData | None:
        """What a mean's interval resamples (None for a run stored without)."""
        found = next((mean.get("units") for mean in self.means if mean["type"] == kind), None)
        return unit_data_from_json(found) if found else None

    @property
    def slot(self) -> tuple[str, ...]:
        """What a newer run of the same system replaces: name, protocol, setting, splits and datasets."""
        fingerprints = json.dumps(self.datasets or {}, sort_keys=True)
        return (
            self.system,
            self.protocol,
            self.setting,
            self.fit_on,
            self.tune_on,
            self.dataset,
            fingerprints,
            str(self.seed),
        )

    @property
    def source(self) -> str:
        """The dataset the model was fitted on (or tuned on, for a system that learns nothing from train)."""
        return (self.fit_on or self.tune_on).split(" ")[0]


FINGERPRINT_FORMAT = "ucdcr-mentions/1"
"""Hashed first into every fingerprint: a change of what :func:`dataset_fingerprint` hashes changes every one."""


@cache
def _content_fingerprint(folder: Path, files: tuple[tuple[str, int, int], ...]) -> str:
    from ucdcr.io.load import load_mentions, read_parquet

    parquet = folder / MENTIONS_PARQUET
    table = read_parquet(parquet) if parquet.is_file() else load_mentions(folder)
    ids = table["mention_id"].to_pylist()
    table = table.take(sorted(range(len(ids)), key=ids.__getitem__))
    digest = hashlib.sha256(FINGERPRINT_FORMAT.encode() + b"\0")
    for name in sorted(table.column_names):
        digest.update(name.encode() + b"\0")
        digest.update(orjson.dumps(table[name].to_pylist()) + b"\0")
    return digest.hexdigest()


def dataset_fingerprint(folder: Path) -> str:
    """SHA-256 of a dataset's mentions: every field of every mention, rows in mention-id order, columns by name
    (``all_mentions.parquet``, else the ``<split>/*_mentions.json`` files). It names the content, not the files: a
    build that writes the same mentions with another pyarrow has the same fingerprint; another build, a release
    copy or a split that moved a mention has another. Computed once per process for unchanged files."""
    folder = Path(folder)
    parquet = folder / MENTIONS_PARQUET
    files = [parquet] if parquet.is_file() else sorted(folder.glob("*/*.json"))
    stats = tuple((str(path), (stat := path.stat()).st_size, stat.st_mtime_ns) for path in files)
    return _content_fingerprint(folder.resolve(), stats)


class ResultStore:
    """The results file of a cache dir (module docstring)."""

    def __init__(self, cache_dir: Path) -> None:
        self.path = Path(cache_dir) / RESULTS_FILE
        self._runs: dict[str, StoredRun] | None = None

    def key(self, spec: SystemSpec, run: Run, protocol: str, fingerprints: Mapping[str, str]) -> str:
        """The key of a run (module docstring); ``protocol``: the protocol's label."""
        from ucdcr.systems.framework.environment import (
            default_device,
            encoder_identity,
            hardware_identity,
            lemmatizer_identity,
        )

        involved = sorted({ref.dataset for ref in (run.fit_on, run.tune_on) if ref} | {run.dataset})
        identity = {
            "format": KEY_FORMAT,
            "seed": run.seed,
            "system": spec.name,
            "identity": spec.identity,
            "protocol": protocol,
            "setting": run.setting,
            "fit_on": str(run.fit_on or ""),
            "tune_on": str(run.tune_on or ""),
            "dataset": run.dataset,
            "datasets": {name: fingerprints[name] for name in involved},
            "lemmatizer": lemmatizer_identity(),
            "encoder": encoder_identity() if spec.needs_encoder else "",
            "hardware": hardware_identity(default_device()) if spec.needs_encoder else "",
        }
        return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()

    def get(self, key: str) -> StoredRun | None:
        return self.runs().get(key)

    def predictions_path(self, key: str) -> Path:
        """Where the test predictions of the run ``key`` are kept: ``<cache dir>/predictions/<key>.json``."""
        return self.path.parent / PREDICTIONS_DIR / f"{key}.json"

    def put_predictions(self, key: str, labels: Mapping[str, str]) -> None:
        """Keep a run's test predictions (mention id -> its cluster, made unique per unit), written atomically."""
        path = self.predictions_path(key)
        with write_errors(path):
            path.parent.mkdir(parents=True, exist_ok=True)
        adapter.write_json(path, dict(labels))

    def predictions(self, key: str) -> dict[str, str] | None:
        """A run's kept test predictions, or None (a run stored without them, or a file that is not theirs)."""
        path = self.predictions_path(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or not all(isinstance(value, str) for value in data.values()):
            return None
        return data

    def put(self, run: StoredRun) -> None:
        """Add ``run`` to the file in place of an older run of its slot, with the runs other processes wrote since
        it was read (under the file's lock)."""
        with write_errors(self.path):
            self.path.parent.mkdir(parents=True, exist_ok=True)
        with exclusive(self.path, "cache dir"):
            runs = {key: old for key, old in read_runs(self.path).items() if old.slot != run.slot}
            runs[run.key] = run
            adapter.write_json(self.path, {"format": FORMAT, "runs": [asdict(runs[key]) for key in sorted(runs)]})
        self._runs = runs

    def runs(self) -> dict[str, StoredRun]:
        if self._runs is None:
            self._runs = read_runs(self.path)
        return self._runs

    def forget(self, system: str) -> int:
        """Remove every stored run of the system named ``system`` (each protocol, dataset, seed and identity), under
        the file's lock, the file rewritten atomically; how many runs were removed. A name with no stored run is one
        error naming the file and the systems it holds."""
        if not self.path.is_file():
            raise UcdcrError(
                f"no stored run of system {system!r}: {self.path} does not exist (no benchmark stored results in "
                "this cache dir; see --cache-dir)"
            )
        with exclusive(self.path, "cache dir"):
            runs = read_runs(self.path)
            kept = {key: run for key, run in runs.items() if run.system != system}
            if len(kept) == len(runs):
                raise UcdcrError(
                    f"no stored run of system {system!r} in {self.path}; stored systems: "
                    f"{', '.join(stored_systems(runs.values())) or 'none'}"
                )
            adapter.write_json(self.path, {"format": FORMAT, "runs": [asdict(kept[key]) for key in sorted(kept)]})
        self._runs = kept
        return len(runs) - len(kept)


def stored_systems(runs: Iterable[StoredRun]) -> list[str]:
    """The system names of ``runs``: the reference systems in their order, then the others by name."""
    from ucdcr.systems.framework.names import BUILTIN

    present = {run.system for run in runs}
    return [name for name in BUILTIN if name in present] + sorted(present - set(BUILTIN))


def forget_command(system: str, cache_dir: Path) -> str:
    """The command that removes the stored runs of ``system`` from the results file of ``cache_dir`` (with
    ``--cache-dir`` unless it is the default cache dir)."""
    from ucdcr.systems.framework.cache import default_cache_dir

    folder = Path(cache_dir)
    option = "" if folder.resolve() == default_cache_dir().resolve() else f" --cache-dir {shlex.quote(str(folder))}"
    return f"ucdcr benchmark --forget {shlex.quote(system)}{option}"


def now() -> str:
    """The time a run is stored (``StoredRun.stored``): ISO 8601 in UTC, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def read_runs(path: Path) -> dict[str, StoredRun]:
    """The runs of a results file by key ({} when there is no file); a file of another shape, or a run whose fields
    are not what this module writes, is one error naming the file and the run."""
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") not in READABLE:
            found = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise ValueError(f"format {found!r}, expected {FORMAT!r}")
        if not isinstance(data.get("runs"), list):
            raise ValueError("no list of runs")
        runs = [run_from_json(item, index) for index, item in enumerate(data["runs"])]
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise UcdcrError(
            f"{path}: not a benchmark results file ({exc}); the fault is in that file: delete it or choose another "
            "--cache-dir"
        ) from None
    return {run.key: run for run in runs}


def read_entries(path: Path) -> list[dict[str, Any]]:
    """The entries of a results file of measured runs (:data:`RESULTS_FORMAT`; [] when there is none): each a
    ``commit`` and a ``run``; a file of another shape is one error naming it."""
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if (
            not isinstance(data, dict)
            or data.get("format") != RESULTS_FORMAT
            or not isinstance(data.get("entries"), list)
        ):
            raise ValueError(f"expected an object of format {RESULTS_FORMAT!r} with a list of entries")
        for index, entry in enumerate(data["entries"]):
            if not isinstance(entry, dict) or not isinstance(entry.get("commit"), str):
                raise ValueError(f"entry {index} has no commit")
            run_from_json(entry.get("run"), index)
    except (OSError, ValueError) as exc:
        raise UcdcrError(f"{path}: not a ucdcr results file ({exc})") from None
    return list(data["entries"])


_TEXT_FIELDS = ("key", "system", "version", "dataset", "level", "setting", "fit_on", "tune_on", "model")


def run_from_json(item: object, index: int) -> StoredRun:
    """One stored run, its fields checked (a ValueError naming the run and the field otherwise)."""
    if not isinstance(item, dict):
        raise ValueError(f"run {index} is {type(item).__name__}, not an object")
    problem = next((name for name in _TEXT_FIELDS if not isinstance(item.get(name), str)), None)
    means = item.get("means")
    if problem is None and not (isinstance(means, list) and all(_is_mean(mean) for mean in means)):
        problem = "means"
    if problem is None and not isinstance(item.get("datasets"), dict | None):
        problem = "datasets"
    if problem is None and not isinstance(item.get("protocol", ""), str):
        problem = "protocol"
    if problem is None and not isinstance(item.get("seed", 0), int):
        problem = "seed"
    if problem is None and not isinstance(item.get("machine"), dict | None):
        problem = "machine"
    if problem is None and not isinstance(item.get("timing"), dict | None):
        problem = "timing"
    if problem is None:
        problem = next(
            (name for name in ("origin", "stored", "signature") if not isinstance(item.get(name), str | None)), None
        )
    if problem is not None:
        raise ValueError(f"run {index} has no valid {problem!r}")
    return StoredRun(**item)


def _is_mean(mean: object) -> bool:
    return (
        isinstance(mean, dict)
        and isinstance(mean.get("type"), str)
        and isinstance(mean.get("scores"), dict)
        and all(isinstance(value, int | float) for value in mean["scores"].values())
    )


RESULT_FLAGS = ("avx512f", "avx512_bf16", "avx512_vnni", "amx_bf16", "avx_vnni", "avx2", "fma", "f16c", "sse4_2")
"""The CPU flags that change what a trained system computes: the vector instructions NumPy, OpenBLAS and torch
choose their kernels (and the last bits of a float) by."""


@cache
def machine() -> dict[str, Any]:
    """Where a run is computed, enough to tell two machines apart: the CPU (model name, family/model/stepping, the
    :data:`RESULT_FLAGS` it has, a digest of all its flags, cores), the processors this process may use, Python,
    ucdcr, NumPy and its BLAS, (when torch is loaded) torch, its threads and BLAS, the host's name and, in a Ray
    worker, the id of the Ray node the run was computed on."""
    import os
    import platform
    import sys

    import numpy

    from ucdcr.version import __version__

    cpu = _cpu_info()
    found: dict[str, Any] = {
        "cpu": cpu.get("model name") or platform.processor() or platform.machine(),
        "cpu_id": " ".join(f"{key} {cpu[key]}" for key in ("cpu family", "model", "stepping") if key in cpu),
        "cpu_flags": [flag for flag in RESULT_FLAGS if flag in cpu.get("flags", "").split()],
        "cpu_flags_digest": hashlib.sha256(cpu.get("flags", "").encode()).hexdigest()[:12],
        "cores": int(cpu["cpu cores"]) if cpu.get("cpu cores", "").isdigit() else os.cpu_count(),
        "processors": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "python": platform.python_version(),
        "ucdcr": __version__,
        "numpy": numpy.__version__,
        "numpy_blas": _numpy_blas(numpy),
    }
    torch = sys.modules.get("torch")
    if torch is not None:
        found["torch"] = str(torch.__version__)
        found["torch_threads"] = int(torch.get_num_threads())
        found["torch_blas"] = "mkl" if torch.backends.mkl.is_available() else "other"
    found["host"] = platform.node()
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():  # a run computed by a Ray worker: the node it ran on
        found["ray_node"] = ray.get_runtime_context().get_node_id()
    return found


def _cpu_info() -> dict[str, str]:
    """The first processor's fields of /proc/cpuinfo ({} elsewhere)."""
    fields: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if not line.strip():
                break
            name, _, value = line.partition(":")
            fields.setdefault(name.strip(), value.strip())
    return fields


def _numpy_blas(numpy: Any) -> str:
    """NumPy's BLAS, name and version, from its build configuration."""
    try:
        blas = numpy.__config__.CONFIG["Build Dependencies"]["blas"]
        return f"{blas['name']} {blas.get('version', '')}".strip()
    except (AttributeError, KeyError, TypeError):
        return "unknown"


def machine_label(found: dict[str, Any]) -> str:
    """A machine in one line, as tables name it: the CPU and its id, the result-changing flags, the processors and
    NumPy's BLAS (what was recorded: a run of an older ucdcr has the CPU and processors only)."""
    cpu = " ".join([str(found.get("cpu", "?")), *([f"({found['cpu_id']})"] if found.get("cpu_id") else [])])
    described = [cpu]
    if found.get("cpu_flags") is not None:
        described.append("+".join(found["cpu_flags"]) or "no vector flags")
    described.append(f"{found.get('processors', '?')} processors")
    if found.get("numpy_blas"):
        described.append(f"NumPy with {found['numpy_blas']}")
    return ", ".join(described)
