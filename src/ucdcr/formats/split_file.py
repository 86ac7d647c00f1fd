"""The uCDCR split file ``ucdcr-meta/train_val_test_split.json``: which topics (or subtopics) are in which split.

An object ``{"train": [ids], "val": [ids], "test": [ids]}`` whose ids are topic or subtopic ids (integers or
strings; ``1`` and ``"1"`` are the same id). A split that is not a list (a number, or a string such as
``"1,2,3"`` that would be read character by character), an id that is not an integer or string, an id listed in
two splits, or a split name other than train/val/test is an error naming the file. JSON rules:
:mod:`ucdcr.formats.json_files`.
"""

from __future__ import annotations

from pathlib import Path

from ucdcr.errors import FormatError
from ucdcr.formats.json_files import expect, list_of, read_json
from ucdcr.records import SPLITS, Split

SPLIT_FILE = "ucdcr-meta/train_val_test_split.json"


def read_split_map(path: Path) -> dict[str, Split]:
    """id -> split from a uCDCR split file."""
    data = expect(read_json(path), "object", path, "the split file", of="split -> list of ids")
    split_of: dict[str, Split] = {}
    for split, ids in data.items():
        if split not in SPLITS:
            raise FormatError(path, f"unknown split {split!r}; expected one of {SPLITS}")
        for item in list_of(ids, "id", path, f"split {split!r} (a list of ids)"):
            key = str(item)
            if key in split_of:
                problem = (
                    f"id {key!r} is listed twice in {split}"
                    if split_of[key] == split
                    else f"id {key!r} is in both {split_of[key]} and {split} (topic {key} is in two splits)"
                )
                raise FormatError(path, problem)
            split_of[key] = split
    return split_of
