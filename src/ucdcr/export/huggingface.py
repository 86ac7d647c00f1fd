"""Hugging Face ``datasets``: a built dataset as a ``DatasetDict``, and as a folder ``datasets.load_dataset`` opens.

Splits are named as Hugging Face names them: ``train``, ``validation`` (our ``val``), ``test``. A split without rows
(not built, e.g. a partial build) is left out, because ``load_dataset`` refuses an empty data file; the card says
which. Features are declared from the unified schema (:data:`ucdcr.schema.MENTION_SCHEMA`, one row per mention, or
:data:`ucdcr.schema.DOCUMENT_SCHEMA`, one row per token) with ``datasets.Features.from_arrow_schema``: list fields
are sequences, ints int64, flags bool, as in the Parquet files.

:func:`load_hf` returns the splits in memory. :func:`export_hf` writes a folder (the whole folder is replaced at
once, :class:`~ucdcr.io.output_folder.OutputFolder`; only a new or empty folder or one an export wrote, never a
data dir, raw dir or dataset folder: :mod:`ucdcr.export.target`)::

    <out>/README.md                       dataset card: YAML header (configs, licence, pretty name) + text
    <out>/mentions/<split>.parquet        config "mentions" (the default)
    <out>/documents/<split>.parquet       config "documents", only where the texts may be redistributed
    <out>/.ucdcr-export.json              the files the export wrote (so a later export may replace them)

Parquet files are written by ``datasets.Dataset.to_parquet``, the card's YAML header by ``huggingface_hub``'s
``DatasetCardData``. The card gives the dataset's licence (a Hugging Face licence id where the manifest names a
standard one, else ``other`` with the manifest's words), the per-split counts of the build report, the references
of the original corpus (its manifest's ``citation``) and of uCDCR. A dataset whose texts may not be redistributed
(:attr:`~ucdcr.registry.DatasetSpec.texts_redistributable`) gets no document config, and its card says so.

Needs the ``hf`` extra; without it, one error names the extra and how to install it.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ucdcr.errors import FormatError, UcdcrError
from ucdcr.io.arrow_paths import arrow_target
from ucdcr.io.atomic import write_errors
from ucdcr.records import SPLITS
from ucdcr.schema import BUILD_REPORT, DOCUMENT_SCHEMA, DOCUMENTS_PARQUET, MENTION_SCHEMA

HF_SPLIT_NAMES: dict[str, str] = {"train": "train", "val": "validation", "test": "test"}
"""Our split -> its Hugging Face name."""
KINDS: dict[str, pa.Schema] = {"mentions": MENTION_SCHEMA, "documents": DOCUMENT_SCHEMA}
"""The configs: one row per mention, one row per token."""
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
        import datasets
    except ImportError:
        from ucdcr.extras import install_hint

        raise UcdcrError(
            f"Hugging Face export needs the optional `hf` extra (the `datasets` package): {install_hint('hf')}"
        ) from None
    return datasets


def load_hf(dataset: str | Path, data_dir: str | Path | None = None, kind: str = "mentions") -> Any:
    """A built dataset as a ``datasets.DatasetDict`` of its non-empty splits (``train``, ``validation``, ``test``).

    dataset: an id in the data dir or a uCDCR folder (as :func:`ucdcr.load`). kind: "mentions" or "documents".
    """
    datasets = require_datasets()
    if kind not in KINDS:
        raise UcdcrError(f"unknown kind {kind!r}; valid kinds: {', '.join(KINDS)}")
    from ucdcr.io.locate import dataset_dir, load

    table = load(dataset_dir(dataset, data_dir), kind=kind)  # type: ignore[arg-type]
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


def _dataset(datasets: ModuleType, table: pa.Table, schema: pa.Schema, split: str) -> Any:
    features = datasets.Features.from_arrow_schema(schema)
    return datasets.Dataset(table, info=datasets.DatasetInfo(features=features), split=datasets.NamedSplit(split))


@dataclass
class HfExport:
    """What :func:`export_hf` wrote: the folder, and per config the rows of each split written."""

    folder: Path
    dataset: str
    rows: dict[str, dict[str, int]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def export_hf(dataset: str | Path, out: str | Path, data_dir: str | Path | None = None) -> HfExport:
    """Write a built dataset as a Hugging Face dataset folder ``out`` (layout and card in the module docstring);
    ``datasets.load_dataset(out)`` then gives its mentions as a ``DatasetDict``."""
    datasets = require_datasets()
    from ucdcr.export import target
    from ucdcr.io.load import consistent
    from ucdcr.io.locate import dataset_dir, load
    from ucdcr.io.output_folder import OutputFolder
    from ucdcr.registry import get

    folder = dataset_dir(dataset, data_dir)
    target.check_replaceable(Path(out), target.check_folder(out, folder, data_dir))

    def write(staging: Path) -> HfExport:
        """Everything read from one build of ``folder`` (the caller repeats this after a rebuild meanwhile)."""
        for entry in list(staging.iterdir()):  # what an attempt before wrote
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        report = read_build_report(folder)
        spec = get(str(report["dataset"]))
        result = HfExport(Path(out), spec.id)
        kinds = ["mentions"]
        if not spec.texts_redistributable:
            result.notes.append(f"the texts of {spec.paper_name} may not be redistributed: no document config")
        elif not (folder / DOCUMENTS_PARQUET).is_file():
            result.notes.append(f"{folder / DOCUMENTS_PARQUET} does not exist: no document config")
        else:
            kinds.append("documents")
        for kind in kinds:
            result.rows[kind] = _write_config(datasets, load(folder, kind=kind), kind, staging)  # type: ignore[arg-type]
        (staging / "README.md").write_text(dataset_card(spec, report, result), encoding="utf-8")
        written = [path.relative_to(staging).as_posix() for path in staging.rglob("*") if path.is_file()]
        target.mark(staging, written)
        return result

    bars_were_on = datasets.utils.logging.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    try:
        with OutputFolder(Path(out)) as output, write_errors(out, pa.ArrowException):
            result = consistent([folder], lambda: write(output.staging))
            # still absent, empty or an export's (checked again late)
            target.check_replaceable(Path(out), target.check_folder(out, folder, data_dir))
            output.commit()
    finally:
        if bars_were_on:
            datasets.enable_progress_bars()
    return result


def _write_config(datasets: ModuleType, table: pa.Table, kind: str, folder: Path) -> dict[str, int]:
    """One config's Parquet file per non-empty split; the rows written per split."""
    rows = {}
    for split, part in split_tables(table).items():
        name = HF_SPLIT_NAMES[split]
        path = folder / kind / f"{name}.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        with arrow_target(path) as target:
            _dataset(datasets, part, KINDS[kind], name).to_parquet(target)
        rows[name] = part.num_rows
    return rows


def read_build_report(folder: Path) -> dict[str, Any]:
    """A built dataset's ``build_report.json`` (the card's counts and the dataset id come from it)."""
    path = folder / BUILD_REPORT
    if not path.is_file():
        from ucdcr.io.release import release_report

        released = release_report(folder)  # the authors' release (docs/release.md): counts from its files
        if released is not None:
            return released
        raise UcdcrError(f"{folder} has no {BUILD_REPORT}: export needs a folder written by `ucdcr build`")
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise FormatError(path, f"cannot be read as JSON: {exc}") from None
    if not isinstance(report, dict) or not isinstance(report.get("dataset"), str):
        raise FormatError(path, "not a build report: no 'dataset' id")
    return report


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
        "```python",
        "import datasets",
        'mentions = datasets.load_dataset("path/to/this/folder")  # DatasetDict: train, validation, test',
        "```",
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
