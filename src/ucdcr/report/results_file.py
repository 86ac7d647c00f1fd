"""The measured results as data: one committed results file, and the docs' results tables rendered from it.

The file ships inside the package as the reference runs (``src/ucdcr/data/reference-runs.json``, which ``ucdcr
evaluate`` and ``ucdcr benchmark`` set a user's system beside: :mod:`ucdcr.systems.framework.standings`)::

    {"entries": [
    {"commit": "<git commit of the code that computed the run>", "run": {<a stored run>}},
    ...
    ], "format": "ucdcr-results/1"}

one entry per line, so that the file diffs run by run.

Each ``run`` is a run of the benchmark's results store (:class:`ucdcr.systems.framework.store.StoredRun`: system,
dataset, protocol, setting, splits, seed, scores and the units their intervals resample, the machine and versions).
Entries are added from a cache dir by :func:`collect` (a newer run replaces the entry of the same slot and system
version; a new version's runs stand beside the older version's) and kept sorted, so the file diffs cleanly. Read back
(:func:`runs_of`), a run of an older version of a built-in system is named ``NAME@vVERSION`` (``cross-encoder@v3``).

Rendering: a document marks each generated table with an HTML comment pair::

    <!-- results: leaderboard standard/gold-topics -->
    ...generated, never edited by hand...
    <!-- /results -->

where the name is ``leaderboard``, ``scores`` or ``models`` and a protocol label, optionally followed by
``systems=a,b`` and ``datasets=x,y`` to select runs and ``brief``; or ``settings`` with comma-separated protocol
labels, ``datasets=`` one dataset and ``type=event`` (``joint``, ``entity``): one column per setting
(:func:`~ucdcr.report.benchmark_tables.settings_table`) (the README's form: of the notes, the protocol
and the signature only). :func:`render_docs` rewrites every marked block from the file
(``ucdcr results render``); with ``check=True`` it changes nothing and returns the files whose blocks differ (the
test suite runs that).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ucdcr.analysis.protocol import Protocol
from ucdcr.errors import UcdcrError
from ucdcr.io.atomic import write_text
from ucdcr.report.benchmark_tables import leaderboard_table, models_table, score_table, settings_table
from ucdcr.report.tables import ResultTable, to_markdown
from ucdcr.systems.framework.names import BUILTIN
from ucdcr.systems.framework.standings import labelled
from ucdcr.systems.framework.store import RESULTS_FORMAT as FORMAT
from ucdcr.systems.framework.store import StoredRun, machine_label, read_entries, read_runs, run_from_json

TABLES = ("leaderboard", "scores", "models", "settings")
MARKER = re.compile(r"<!-- results: (?P<spec>[^>]*?) -->\n(?P<body>.*?)<!-- /results -->", re.DOTALL)


def runs_of(entries: Iterable[dict[str, Any]]) -> list[StoredRun]:
    """The file's runs, those of an older version of a built-in system named ``NAME@vVERSION``
    (:func:`~ucdcr.systems.framework.standings.labelled`)."""
    return labelled(run_from_json(entry["run"], index) for index, entry in enumerate(entries))


def collect(
    store_file: Path,
    results: Path,
    commit: str,
    systems: Sequence[str] = (),
    datasets: Sequence[str] = (),
    protocols: Sequence[str] = (),
) -> int:
    """Add the runs of a benchmark results store (optionally only these systems, datasets, protocol labels) to the
    results file, each replacing the entry of its slot; how many were added."""
    if not re.fullmatch(r"[0-9a-f]{40}", commit):
        raise UcdcrError(f"commit {commit!r}: give the full 40-character git commit hash (git rev-parse {commit})")
    chosen = [
        run
        for run in read_runs(store_file).values()
        if (not systems or run.system in systems)
        and (not datasets or run.dataset in datasets)
        and (not protocols or run.protocol in protocols)
    ]
    if not chosen:
        raise UcdcrError(f"{store_file}: no stored run matches the selection")
    entries = {_slot(run_from_json(entry["run"], 0)): entry for entry in read_entries(results)}
    for run in chosen:
        entries[_slot(run)] = {"commit": commit, "run": asdict(run)}
    ordered = sorted(entries.values(), key=lambda entry: _order(run_from_json(entry["run"], 0)))
    write_text(results, results_text(ordered))
    return len(chosen)


def _slot(run: StoredRun) -> tuple[str, ...]:
    """What a collected run replaces: the run of its slot and version (a new version's runs stand beside the older
    version's until it is measured everywhere)."""
    return (*run.slot, run.version)


def results_text(entries: Sequence[dict[str, Any]]) -> str:
    """A results file's text: one entry per line (module docstring)."""
    lines = ",\n".join(json.dumps(entry, sort_keys=True) for entry in entries)
    return f'{{"entries": [\n{lines}\n], "format": "{FORMAT}"}}\n'


def _order(run: StoredRun) -> tuple[str, str, str, str, int, str]:
    return (run.protocol, run.dataset, run.system, run.setting, run.seed, run.fit_on)


def render_table(runs: Sequence[StoredRun], spec: str) -> ResultTable:
    """The table a marker names (module docstring) from the runs."""
    words = spec.split()
    if len(words) < 2 or words[0] not in TABLES:
        raise UcdcrError(
            f"results marker {spec!r}: expected '<{'|'.join(TABLES)}> <protocol> [systems=..] [datasets=..]'"
        )
    brief = "brief" in words[2:]
    kind, label, options = words[0], words[1], _options([word for word in words[2:] if word != "brief"], spec)
    labels = label.split(",")
    chosen = [run for run in runs if run.protocol in labels]
    if options.get("systems"):
        chosen = [run for run in chosen if run.system in options["systems"]]
    if options.get("datasets"):
        chosen = [run for run in chosen if run.dataset in options["datasets"]]
    if not chosen:
        raise UcdcrError(f"results marker {spec!r}: no run of the results file matches it")
    present = {run.system for run in chosen}
    systems = options.get("systems") or [n for n in BUILTIN if n in present] + sorted(present - set(BUILTIN))
    datasets = options.get("datasets") or sorted({run.dataset for run in chosen})
    if kind == "settings":
        types = options.get("type") or ["joint"]
        return settings_table(chosen, systems, datasets[0], [Protocol.from_label(one) for one in labels], types[0])
    protocol = Protocol.from_label(label)
    if kind == "leaderboard":
        table = leaderboard_table(chosen, systems, datasets, protocol)
    elif kind == "scores":
        table = score_table(chosen, systems, datasets, protocol)
    else:
        table = models_table(chosen, systems, datasets)
    return _brief(table) if brief else table


def _brief(table: ResultTable) -> ResultTable:
    """The table with its first note (the protocol) and its signature alone."""
    notes = table.notes[:1] + [note for note in table.notes[1:] if note.startswith("Signature: ")]
    return ResultTable(table.title, table.columns, table.rows, table.digits, notes, table.styles)


def _options(words: Sequence[str], spec: str) -> dict[str, list[str]]:
    options: dict[str, list[str]] = {}
    for word in words:
        name, _, value = word.partition("=")
        if name not in ("systems", "datasets", "type") or not value:
            raise UcdcrError(
                f"results marker {spec!r}: unknown option {word!r} (systems=a,b, datasets=x,y, type=event or brief)"
            )
        options[name] = value.split(",")
    return options


def rendered(text: str, runs: Sequence[StoredRun], machines: bool = True) -> str:
    """``text`` with every marked block rendered anew (Markdown, the table's heading one level down)."""

    def block(match: re.Match[str]) -> str:
        table = render_table(runs, match["spec"])
        body = to_markdown(table).replace("### ", "#### ", 1)
        if machines:
            body += _provenance(runs, table)
        return f"<!-- results: {match['spec']} -->\n{body}<!-- /results -->"

    return MARKER.sub(block, text)


def _provenance(runs: Sequence[StoredRun], table: ResultTable) -> str:
    """One line naming the machines (:func:`~ucdcr.systems.framework.store.machine_label`) of the runs in a
    table."""
    systems = {row.get("System") for row in table.rows}
    machines = sorted({machine_label(run.machine) for run in runs if run.machine and run.system in systems})
    return f"\nComputed on: {'; '.join(machines)}.\n" if machines else ""


def render_docs(results: Path, documents: Sequence[Path], check: bool = False) -> list[Path]:
    """Rewrite the marked blocks of ``documents`` from the results file (``check``: only report); the documents
    whose blocks were (or would be) changed."""
    runs = runs_of(read_entries(results))
    changed = []
    for document in documents:
        text = document.read_text(encoding="utf-8")
        new = rendered(text, runs)
        if new != text:
            changed.append(document)
            if not check:
                write_text(document, new)
    return changed
