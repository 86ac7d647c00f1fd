"""Hugging Face ``datasets``: a built dataset as a ``DatasetDict``, and as a folder ``datasets.load_dataset`` opens.

Splits are named as Hugging Face names them: ``train``, ``validation`` (our ``val``), ``test``. A split without rows
(not built, e.g. a partial build) is left out, because ``load_dataset`` refuses an empty data file; the card says
which. Features are declared from the unified schema (:data:`ucdcr.schema.MENTION_SCHEMA`, one row per mention, or
:data:`ucdcr.schema.DOCUMENT_SCHEMA`, one row per token) with ``datasets.Features.from_arrow_schema``: list fields
are sequences, ints int64, flags bool, as in the Parquet files.

:func:`load_hf` returns the splits in memory. :func:`export_hf` writes a folder that both loaders of ``datasets``
open, ``datasets.load_dataset(out)`` and ``datasets.load_from_disk(out)`` (the whole folder is replaced at once,
:class:`~ucdcr.io.output_folder.OutputFolder`; only a new or empty folder or one an export wrote, never a data dir,
raw dir or dataset folder: :mod:`ucdcr.export.target`)::

    <out>/README.md                       dataset card: YAML header (configs, licence, pretty name) + text
    <out>/mentions/<split>.parquet        config "mentions" (the default), what load_dataset reads
    <out>/documents/<split>.parquet       config "documents", only where the texts may be redistributed
    <out>/dataset_dict.json               load_from_disk(out): the mentions, a DatasetDict saved by save_to_disk
    <out>/<split>/                          (data-00000-of-00001.arrow, dataset_info.json, state.json)
    <out>/documents/dataset_dict.json     load_from_disk(out/documents): the tokens, saved the same way
    <out>/documents/<split>/
    <out>/.ucdcr-export.json              the files the export wrote (so a later export may replace them)

Each loader reads its own copy, written from the same tables: ``load_dataset`` follows the card's ``configs:`` to
the Parquet files (small, what the Hub shows), ``load_from_disk`` memory-maps the Arrow files
``DatasetDict.save_to_disk`` wrote (about ten times the size of the Parquet). Neither can do with the other's
files -- ``load_from_disk`` opens only ``save_to_disk``'s layout, and ``load_dataset`` refuses a folder that holds a
saved ``Dataset`` (``state.json`` at its top, which a saved ``DatasetDict`` has not) -- so both are written. The
saved copy's fingerprints are digests of the Parquet files, so an export of the same build gives the same files.

Parquet files are written by ``datasets.Dataset.to_parquet``, the card's YAML header by ``huggingface_hub``'s
``DatasetCardData``. The card gives the dataset's licence (a Hugging Face licence id where the manifest names a
standard one, else ``other`` with the manifest's words), the per-split counts of the build report, the references
of the original corpus (its manifest's ``citation``) and of uCDCR; the saved copy's ``DatasetInfo`` carries the
licence and the references too. A dataset whose texts may not be redistributed
(:attr:`~ucdcr.registry.DatasetSpec.texts_redistributable`) gets no document config, and its card says so.

``datasets`` reaches files through fsspec, which reads ``::`` in a path as a chain of URLs: it would write such a
path's files elsewhere, and neither loader could open it, so an ``out`` whose path holds ``::`` is refused.

Needs the ``hf`` extra; without it, one error names the extra and how to install it.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from ucdcr.errors import UcdcrError
from ucdcr.io.atomic import write_errors
from ucdcr.records import SPLITS
from ucdcr.schema import DOCUMENT_SCHEMA, DOCUMENTS_PARQUET, MENTION_SCHEMA

if TYPE_CHECKING:
    from ucdcr.io.contents import DatasetContents

HF_SPLIT_NAMES: dict[str, str] = {"train": "train", "val": "validation", "test": "test"}
"""Our split -> its Hugging Face name."""
KINDS: dict[str, pa.Schema] = {"mentions": MENTION_SCHEMA, "documents": DOCUMENT_SCHEMA}
"""The configs: one row per mention, one row per token."""
ROWS: dict[str, str] = {"mentions": "one row per mention", "documents": "one row per token"}
SAVED_AT: dict[str, str] = {"mentions": ".", "documents": "documents"}
"""Where in an exported folder each config's ``save_to_disk`` copy is (what ``load_from_disk`` opens)."""
HF_LICENCES: dict[str, str] = {
    "CC BY 3.0": "cc-by-3.0",
    "CC BY 4.0": "cc-by-4.0",
    "CC BY-SA 3.0": "cc-by-sa-3.0",
    "CC BY-SA 4.0": "cc-by-sa-4.0",
    "Apache-2.0": "apache-2.0",
}
"""Manifest licences that are exactly one standard licence, and their Hugging Face ids."""
UCDCR_CITATION = """@misc{zhukova2026piecingcrossdocumentcoreferenceresolution,
  title={Piecing Together Cross-Document Coreference Resolution Datasets: Systematic Dataset Analysis and Unification},
  author={Anastasia Zhukova and Terry Ruas and Jan Philip Wahle and Bela Gipp},
  year={2026},
  eprint={2603.00621},
  archivePrefix={arXiv},
  primaryClass={cs.CL},
  note={accepted to LREC 2026},
  url={https://arxiv.org/abs/2603.00621}
}"""
"""How the uCDCR authors ask to cite their paper."""


def require_datasets() -> ModuleType:
    """The ``datasets`` module, or a UcdcrError naming the ``hf`` extra."""
    try:
        import datasets  # an import statement, which deptry sees (extras.require imports by name)
    except ImportError:
        from ucdcr.extras import needs

        raise UcdcrError(f"Hugging Face export {needs('hf')}") from None
    return datasets


def load_hf(dataset: str | Path, data_dir: str | Path | None = None, kind: str = "mentions") -> Any:
    """A built dataset as a ``datasets.DatasetDict`` of its non-empty splits (``train``, ``validation``, ``test``).

    dataset: an id in the data dir or a uCDCR folder (as :func:`ucdcr.load`). kind: "mentions" or "documents".
    """
    datasets = require_datasets()
    if kind not in KINDS:
        raise UcdcrError(f"unknown kind {kind!r}; valid kinds: {', '.join(KINDS)}")
    from ucdcr.io.load import read_table
    from ucdcr.sources.discover import dataset_dir

    table = read_table(dataset_dir(dataset, data_dir), kind=kind)  # type: ignore[arg-type]
    return datasets.DatasetDict(
        {
            HF_SPLIT_NAMES[split]: _dataset(datasets, part, KINDS[kind], HF_SPLIT_NAMES[split])
            for split, part in split_tables(table).items()
        }
    )


def split_tables(table: pa.Table) -> dict[str, pa.Table]:
    """The rows of each split that has any, in split order."""
    parts = {split: table.filter(pc.equal(table["split"], split)) for split in SPLITS}
    return {split: part for split, part in parts.items() if part.num_rows}


def _dataset(
    datasets: ModuleType,
    table: pa.Table,
    schema: pa.Schema,
    split: str,
    info: dict[str, str] | None = None,
    fingerprint: str | None = None,
) -> Any:
    """A ``datasets.Dataset`` of ``table`` with the features of ``schema`` (and ``info``'s DatasetInfo fields)."""
    features = datasets.Features.from_arrow_schema(schema)
    return datasets.Dataset(
        table,
        info=datasets.DatasetInfo(features=features, **(info or {})),
        split=datasets.NamedSplit(split),
        fingerprint=fingerprint,
    )


@dataclass
class HfExport:
    """What :func:`export_hf` wrote: the folder, and per config the rows of each split written."""

    folder: Path
    dataset: str
    rows: dict[str, dict[str, int]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def how_to_open(self) -> list[str]:
        """One line per config: the two calls of ``datasets`` that open it (absolute paths, ready to paste)."""
        folder = self.folder.resolve()
        lines = []
        for kind in self.rows:
            saved = folder if SAVED_AT[kind] == "." else folder / SAVED_AT[kind]
            config = "" if kind == "mentions" else f", {kind!r}"
            lines.append(
                f"open the {kind} with datasets.load_from_disk({str(saved)!r}) "
                f"or datasets.load_dataset({str(folder)!r}{config})"
            )
        return lines


def export_hf(dataset: str | Path, out: str | Path, data_dir: str | Path | None = None) -> HfExport:
    """Write a built dataset as a Hugging Face dataset folder ``out`` (layout and card in the module docstring):
    ``datasets.load_dataset(out)`` and ``datasets.load_from_disk(out)`` then give its mentions as a ``DatasetDict``,
    ``load_dataset(out, "documents")`` and ``load_from_disk(out / "documents")`` its tokens."""
    datasets = require_datasets()
    from ucdcr.export import target
    from ucdcr.io.contents import read_contents
    from ucdcr.io.output_folder import OutputFolder
    from ucdcr.registry import get
    from ucdcr.sources.discover import dataset_dir

    folder = dataset_dir(dataset, data_dir)
    target.check_replaceable(Path(out), target.check_folder(out, folder, data_dir))
    check_fsspec_path(out)
    contents = read_contents(folder)  # the record and the tables, of one build
    spec = get(str(contents.report["dataset"]))
    bars_were_on = datasets.utils.logging.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    try:
        with OutputFolder(Path(out)) as output, write_errors(out, pa.ArrowException):
            result = _write(datasets, contents, spec, output.staging, Path(out))
            # still absent, empty or an export's (checked again late)
            target.check_replaceable(Path(out), target.check_folder(out, folder, data_dir))
            output.commit()
    finally:
        if bars_were_on:
            datasets.enable_progress_bars()
    return result


def _write(datasets: ModuleType, contents: DatasetContents, spec: Any, staging: Path, out: Path) -> HfExport:
    """Write the configs of ``contents`` and the card into ``staging`` (to be swapped in as ``out``)."""
    from ucdcr.export import target

    result = HfExport(out, spec.id)
    tables = {"mentions": contents.mentions}
    if not spec.texts_redistributable:
        result.notes.append(f"the texts of {spec.paper_name} may not be redistributed: no document config")
    elif contents.documents is None:
        result.notes.append(f"{contents.folder / DOCUMENTS_PARQUET} does not exist: no document config")
    else:
        tables["documents"] = contents.documents
    for kind, table in tables.items():
        result.rows[kind] = _write_config(datasets, table, kind, staging, _info(spec, kind))
    (staging / "README.md").write_text(dataset_card(spec, contents.report, result), encoding="utf-8")
    written = [path.relative_to(staging).as_posix() for path in staging.rglob("*") if path.is_file()]
    target.mark(staging, written)
    return result


def check_fsspec_path(out: str | Path) -> None:
    """Refuse an ``out`` whose absolute path holds ``::`` (module docstring): fsspec, through which ``datasets``
    writes and reads, takes it for a chain of URLs."""
    if "::" in os.path.abspath(out):
        raise UcdcrError(
            f"--out {out}: its path holds '::', which Hugging Face datasets (fsspec) reads as a chain of URLs: "
            "it would write the files elsewhere and could not load them; choose a folder whose path has no '::'"
        )


def _info(spec: Any, kind: str) -> dict[str, str]:
    """The DatasetInfo fields of the saved copy of one config: what it is, its licence, its references."""
    return {
        "description": f"{spec.paper_name} in the uCDCR unified format, config {kind}: {ROWS[kind]} "
        f"(`ucdcr export hf {spec.id}`; the card is README.md)",
        "citation": "\n\n".join([*spec.citation, UCDCR_CITATION]),
        "license": spec.licence,
        "config_name": kind,
    }


def _write_config(
    datasets: ModuleType, table: pa.Table, kind: str, folder: Path, info: dict[str, str]
) -> dict[str, int]:
    """One config: a Parquet file per non-empty split (for ``load_dataset``), then the same splits saved with
    ``DatasetDict.save_to_disk`` at :data:`SAVED_AT` (for ``load_from_disk``); the rows written per split."""
    saved = {}
    for split, part in split_tables(table).items():
        name = HF_SPLIT_NAMES[split]
        path = folder / kind / f"{name}.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as handle:  # a Python file: no path goes through fsspec (nor Arrow, for non-UTF-8)
            _dataset(datasets, part, KINDS[kind], name).to_parquet(handle)
        with open(path, "rb") as handle:
            fingerprint = hashlib.file_digest(handle, "sha256").hexdigest()[:16]  # same build, same files
        saved[name] = _dataset(datasets, part, KINDS[kind], name, info=info, fingerprint=fingerprint)
    datasets.DatasetDict(saved).save_to_disk(os.fspath((folder / SAVED_AT[kind]).absolute()))
    return {name: split.num_rows for name, split in saved.items()}


def hf_licence(licence: str) -> dict[str, str]:
    """The card's licence fields: a Hugging Face id, or ``other`` with the manifest's words."""
    if licence in HF_LICENCES:
        return {"license": HF_LICENCES[licence]}
    return {"license": "other", "license_name": "see-card", "license_details": licence}


def dataset_card(spec: Any, report: dict[str, Any], export: HfExport) -> str:
    """The README.md of an exported folder: YAML header (by huggingface_hub) and the card text."""
    from huggingface_hub import DatasetCardData

    configs = [
        {
            "config_name": kind,
            "data_files": [{"split": name, "path": f"{kind}/{name}.parquet"} for name in splits],
            **({"default": True} if kind == "mentions" else {}),
        }
        for kind, splits in export.rows.items()
    ]
    fields: dict[str, Any] = {
        "language": ["en"],
        "pretty_name": f"{spec.paper_name} (uCDCR unified format)",
        "task_categories": ["token-classification"],
        "tags": ["coreference-resolution", "cross-document-coreference", "ucdcr"],
        "configs": configs,
        **hf_licence(spec.licence),
    }
    header = DatasetCardData(**fields).to_yaml()
    return f"---\n{header}\n---\n\n" + _card_text(spec, report, export)


def _card_text(spec: Any, report: dict[str, Any], export: HfExport) -> str:
    release = report.get("release")
    made = (
        f"taken from the authors' uCDCR release ({release.get('release')}, {release.get('licence')}, commit "
        f"{release.get('commit') or 'unknown: a local copy'}) by `ucdcr download --release {spec.id}`"
        if isinstance(release, dict)
        else f"built from its original files by `ucdcr build {spec.id}`"
    )
    lines = [
        f"# {spec.paper_name} in the uCDCR unified format",
        "",
        f"The {spec.paper_name} corpus {made} and exported by `ucdcr export hf {spec.id}`. Config `mentions` "
        "(the default): one row per mention, the 29 fields of the "
        "uCDCR unified format. Config `documents`: one row per token of every document.",
        "",
        *_loading_text(export),
        "",
        "## Licence",
        "",
        f"{spec.licence} (the licence of the original corpus).",
    ]
    if "documents" not in export.rows:
        lines += ["", "## Texts", ""]
        if not spec.texts_redistributable:
            lines.append(
                f"The texts of {spec.paper_name} may not be redistributed: this folder has no `documents` config. "
                f"Build the dataset from the original sources yourself (`ucdcr download {spec.id}` names the steps)."
            )
        elif isinstance(release, dict):
            lines.append("The release copy that was exported has no token table, so there is no `documents` config.")
        else:
            lines.append("The build that was exported wrote no token table, so there is no `documents` config.")
    lines += ["", "## Splits", "", *_counts_table(report, export), "", "## Citation", ""]
    lines += ["The original corpus:", "", *[f"- {reference}" for reference in spec.citation], ""]
    lines += ["The unified format (uCDCR):", "", "```bibtex", UCDCR_CITATION, "```", ""]
    return "\n".join(lines)


def _loading_text(export: HfExport) -> list[str]:
    """The card's part on opening the folder with either loader, and on which files each one reads."""
    documents = "documents" in export.rows
    lines = [
        "## Loading",
        "",
        f"Both loaders of `datasets` open this folder, each as a `DatasetDict` ({', '.join(export.rows['mentions'])}):",
        "",
        "```python",
        "import datasets",
        'mentions = datasets.load_dataset("path/to/this/folder")  # the Parquet files, config mentions',
        'mentions = datasets.load_from_disk("path/to/this/folder")  # the same rows, saved by save_to_disk',
    ]
    if documents:
        lines += [
            'tokens = datasets.load_dataset("path/to/this/folder", "documents")',
            'tokens = datasets.load_from_disk("path/to/this/folder/documents")',
        ]
    saved = "`dataset_dict.json` and the split folders" + (", here and in `documents/`," if documents else "")
    parquet = "`mentions/*.parquet`" + (" and `documents/*.parquet`" if documents else "")
    return [
        *lines,
        "```",
        "",
        f"`load_dataset` reads {parquet}, as the `configs` of this card's header say; {saved} are the copy "
        "`DatasetDict.save_to_disk` wrote, which `load_from_disk` opens. To publish the dataset on the Hub, "
        "uploading this card and the Parquet files is enough.",
    ]


COUNT_COLUMNS = ("documents", "tokens", "mentions", "event_mentions", "entity_mentions", "chains", "singletons")


def _counts_table(report: dict[str, Any], export: HfExport) -> list[str]:
    """The build report's per-split counts, and the splits not built with the reason."""
    splits = report.get("splits")
    splits = splits if isinstance(splits, dict) else {}
    rows = ["| split | " + " | ".join(COUNT_COLUMNS) + " |", "|---" * (len(COUNT_COLUMNS) + 1) + "|"]
    for split in SPLITS:
        counts = splits.get(split) if isinstance(splits.get(split), dict) else None
        if counts and counts.get("mentions"):
            cells = " | ".join(str(counts.get(column, "")) for column in COUNT_COLUMNS)
            rows.append(f"| {HF_SPLIT_NAMES[split]} | {cells} |")
    unavailable = report.get("unavailable_splits")
    notes = [f"Split {HF_SPLIT_NAMES.get(s, s)} not built: {why}." for s, why in dict(unavailable or {}).items()]
    missing = [name for name in HF_SPLIT_NAMES.values() if name not in export.rows.get("mentions", {})]
    if missing and not notes:
        notes.append(f"No rows in {', '.join(missing)}: those splits are left out.")
    return rows + (["", *notes] if notes else [])
