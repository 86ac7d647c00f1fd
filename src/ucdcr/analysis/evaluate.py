"""Evaluate a system's clusters with the uCDCR protocol (:mod:`ucdcr.analysis.baseline`).

Predictions map a mention_id of the built data (test split) to a cluster id, in one of these files:
- JSON object: ``{"<mention_id>": <cluster>, ...}``;
- JSON list: ``[{"mention_id": "<mention_id>", "cluster": <cluster>}, ...]``;
- CSV with the header ``mention_id,cluster`` (other columns are ignored).
Cluster ids are compared as strings (``1`` and ``"1"`` are the same cluster). Only their grouping matters: within
each evaluation setting, mentions with the same cluster id are one predicted cluster. One file may cover several
datasets (mention ids are unique across our builds).

Every mention the protocol evaluates must have a prediction (a missing one is an error listing them), and every
predicted id must be a test mention of a selected dataset (an unknown id is an error); predictions for test
mentions the protocol leaves out (singletons) are accepted and ignored.
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from ucdcr.analysis.baseline import ProtocolResult, evaluation_rows, run_protocol
from ucdcr.errors import FormatError, UcdcrError

_SHOWN = 20  # ids listed in an error message


def read_predictions(path: str | Path) -> dict[str, str]:
    """mention_id -> cluster id (as a string) from a JSON or CSV predictions file (formats: module docstring)."""
    path = Path(path)
    if not path.is_file():
        raise UcdcrError(f"predictions file {path} does not exist")
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".csv" or not text.lstrip().startswith(("{", "[")):
        return _read_csv(path, text)
    return _read_json(path, text)


def _read_json(path: Path, text: str) -> dict[str, str]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(path, f"not valid JSON: {exc.msg}", exc.lineno) from None
    if isinstance(data, dict):
        pairs = list(data.items())
    elif isinstance(data, list):
        pairs = []
        for index, item in enumerate(data):
            if not isinstance(item, dict) or "mention_id" not in item or "cluster" not in item:
                raise FormatError(path, f"item {index} is not an object with keys 'mention_id' and 'cluster'")
            pairs.append((item["mention_id"], item["cluster"]))
    else:
        raise FormatError(path, "expected a JSON object {mention_id: cluster} or a list of {mention_id, cluster}")
    return _to_mapping(path, pairs)


def _read_csv(path: Path, text: str) -> dict[str, str]:
    reader = csv.DictReader(text.splitlines())
    if reader.fieldnames is None or not {"mention_id", "cluster"} <= set(reader.fieldnames):
        raise FormatError(path, "the CSV header must name the columns 'mention_id' and 'cluster'", 1)
    pairs = []
    for line, record in enumerate(reader, start=2):
        if not record["mention_id"] or record["cluster"] in (None, ""):
            raise FormatError(path, "empty mention_id or cluster", line)
        pairs.append((record["mention_id"], record["cluster"]))
    return _to_mapping(path, pairs)


def _to_mapping(path: Path, pairs: Sequence[tuple[Any, Any]]) -> dict[str, str]:
    for mention_id, cluster in pairs:
        if not isinstance(mention_id, str) or cluster is None or isinstance(cluster, dict | list):
            raise FormatError(
                path, f"bad prediction {mention_id!r} -> {cluster!r}: need a string id and a scalar cluster"
            )
    repeated = [mention_id for mention_id, count in Counter(m for m, _ in pairs).items() if count > 1]
    if repeated:
        raise FormatError(path, f"{len(repeated)} mention ids are predicted twice: {_listing(repeated)}")
    return {mention_id: str(cluster) for mention_id, cluster in pairs}


def _listing(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:_SHOWN])
    return shown + (f", … ({len(ids) - _SHOWN} more)" if len(ids) > _SHOWN else "")


def check_coverage(predictions: Mapping[str, str], tables: Mapping[str, pa.Table]) -> None:
    """Raise if an evaluated mention has no prediction, or a predicted id is no test mention of ``tables``."""
    known: set[str] = set()
    missing: list[str] = []
    for dataset, table in tables.items():
        ids = table["mention_id"].to_pylist()
        splits = table["split"].to_pylist()
        known.update(mention_id for mention_id, split in zip(ids, splits, strict=True) if split == "test")
        evaluated = [ids[row] for row in evaluation_rows(table)]
        repeated = [mention_id for mention_id, count in Counter(evaluated).items() if count > 1]
        if repeated:
            raise UcdcrError(
                f"{dataset}: mention ids are not unique, so predictions keyed by id are ambiguous: {_listing(repeated)}"
            )
        missing += [mention_id for mention_id in evaluated if mention_id not in predictions]
    if missing:
        raise UcdcrError(
            f"{len(missing)} evaluated mentions have no prediction: {_listing(missing)} "
            "(predict every test mention of the selected datasets, or select datasets with --datasets)"
        )
    unknown = [mention_id for mention_id in predictions if mention_id not in known]
    if unknown:
        raise UcdcrError(
            f"{len(unknown)} predicted mention ids are not test mentions of the selected datasets "
            f"({', '.join(tables)}): {_listing(unknown)}"
        )


def evaluate(
    predictions: Mapping[str, str], tables: Mapping[str, pa.Table], topic_levels: Mapping[str, bool]
) -> list[ProtocolResult]:
    """Score the predictions on each dataset's test mentions with the uCDCR protocol.

    tables: dataset -> mention table (test split, the baseline's EVAL_FIELDS and ``type``);
    topic_levels: dataset -> whether it is also evaluated per topic.
    """
    check_coverage(predictions, tables)
    results = []
    for dataset, table in tables.items():
        labels = [predictions.get(mention_id) for mention_id in table["mention_id"].to_pylist()]
        results.append(run_protocol(dataset, table, labels, topic_levels[dataset]))
    return results
