"""Checks every reader runs before it hands its corpus on: nothing missing unnoticed, no mention silently changed.

Missing parts. A dataset declares what its corpus consists of (the ids of its split file, its topic or event
folders, the documents an index lists). When a listed part is absent from the raw files, the reader stops with
one error naming every missing part (:class:`~ucdcr.errors.MissingRawData` when the user can fetch it again,
:class:`~ucdcr.errors.FormatError` when the raw files contradict each other), instead of renumbering what is
left, moving it to another split, or leaving a split empty. Absences that are facts of a dataset (ECB+'s split
file lists topics 15 and 17, which the corpus does not have) are declared in its module and are not errors.

The reader option ``partial`` (``ucdcr build <id> --option partial=true``, :attr:`ucdcr.registry.ReadOptions.partial`)
accepts a partial corpus: the build goes on with what is there, ids and splits unchanged, and the corpus notes
(hence the build report) name what is missing.

Readers pass mentions on as annotated: the build checks centrally that document keys are unique and drops (with
its reason) every mention that is not one contiguous, non-empty run of one sentence (:mod:`ucdcr.pipeline.build`,
:mod:`ucdcr.pipeline.document`). A dataset whose declared rule fills the gaps of discontinuous annotations (ECB+)
fills them in its reader, explicitly and counted.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import Literal

from ucdcr.errors import FormatError, MissingRawData
from ucdcr.records import SPLITS, SourceCorpus
from ucdcr.registry import ReadOptions

PARTIAL_HINT = (
    "To build what is there anyway, pass --option partial=true (the build report then lists what is missing)."
)


def partial_allowed(options: ReadOptions | None) -> bool:
    """Whether the user accepts a partial corpus (reader option ``partial``)."""
    return options is not None and options.partial


def natural_order(names: Iterable[str]) -> list[str]:
    """Names sorted with numbers by value ("2" before "10")."""
    return sorted(names, key=lambda name: (0, int(name), "") if name.isdigit() else (1, 0, name))


def report_missing(
    corpus: SourceCorpus,
    options: ReadOptions | None,
    where: str | Path,
    problem: str,
    hint: str,
    kind: Literal["missing", "format"] = "missing",
) -> None:
    """Raise the error for a missing part (``where``: the file or folder that names it), or, with
    ``partial=true``, note it in the corpus and go on."""
    if partial_allowed(options):
        corpus.notes.append(f"partial corpus (option partial=true): {where}: {problem}")
        return
    if kind == "format":
        raise FormatError(where, f"{problem}. {hint} {PARTIAL_HINT}".strip())
    raise MissingRawData(f"{where}: {problem}. {hint} {PARTIAL_HINT}".strip())


def require_listed_ids(
    corpus: SourceCorpus,
    options: ReadOptions | None,
    split_of: Mapping[str, str],
    found: Iterable[str],
    *,
    what: str,
    listed_in: str | Path,
    hint: str,
    known_absent: Collection[str] = (),
    names: Mapping[str, str] | None = None,
    kind: Literal["missing", "format"] = "missing",
) -> None:
    """Every id the split file lists (``split_of``) must have been found, except the dataset's known absences.

    ``what`` names the parts (e.g. "topic folders"); the error names the missing ids (with their ``names``, e.g.
    ``1 (china)``) and the splits they would leave empty.
    """
    found_ids = set(found)
    missing = natural_order(set(split_of) - found_ids - set(known_absent))
    if not missing:
        return
    emptied = [
        split
        for split in SPLITS
        if any(s == split for s in split_of.values())
        and not any(s == split and i in found_ids for i, s in split_of.items())
    ]
    shown = [f"{i} ({names[i]})" if names and i in names else i for i in missing]
    problem = f"{what} listed in the split file but not found: {', '.join(shown)}"
    if emptied:
        problem += f" (split(s) {', '.join(emptied)} would be empty)"
    report_missing(corpus, options, listed_in, problem, hint, kind)
