"""JSON inputs shared by several readers.

- Any JSON file: malformed JSON becomes a :class:`~ucdcr.errors.FormatError` naming the file and line.
- The uCDCR split file ``ucdcr-meta/train_val_test_split.json`` (ECB+, ECB+METAm, NP4E, NIdent, MEANTIME,
  NewsWCL50r): an object ``{"train": [ids], "val": [ids], "test": [ids]}`` whose ids are topic or subtopic ids
  (numbers or strings); an id listed in two splits, or a split name other than train/val/test, is an error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ucdcr.errors import FormatError, MissingRawData
from ucdcr.records import SPLITS, Split


def read_json(path: Path) -> Any:
    """A JSON file, with a FormatError naming file and line when it is missing or malformed."""
    if not path.is_file():
        raise FormatError(path, "file not found")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise FormatError(path, f"invalid JSON: {exc.msg}", exc.lineno) from None


def read_split_map(path: Path) -> dict[str, Split]:
    """id -> split from a uCDCR split file (MissingRawData when the file is absent)."""
    if not path.is_file():
        raise MissingRawData(f"split file not found: {path}")
    data = read_json(path)
    if not isinstance(data, dict):
        raise FormatError(path, "expected an object split -> ids")
    split_of: dict[str, Split] = {}
    for split, ids in data.items():
        if split not in SPLITS:
            raise FormatError(path, f"unknown split {split!r}; expected one of {SPLITS}")
        for item in ids:
            key = str(item)
            if key in split_of:
                raise FormatError(path, f"id {key!r} is in both {split_of[key]} and {split} (topic {key} is in two splits)")
            split_of[key] = split  # type: ignore[assignment]
    return split_of
