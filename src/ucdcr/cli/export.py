"""`ucdcr export conll DATASET`: a built dataset as CoNLL-2012 key files (see :mod:`ucdcr.io.conll_export`).

Each file written is printed with its absolute path."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from ucdcr.cli.common import DataDirOption, console, friendly_errors, output_folder_option
from ucdcr.records import SPLITS


def register(app: typer.Typer) -> None:
    export_app = typer.Typer(help="Export built datasets to other formats.", no_args_is_help=True)
    app.add_typer(export_app, name="export")

    @export_app.command("conll", help="Write CoNLL-2012 files. Integer chain ids, plus a JSON chain mapping.")
    @friendly_errors
    def _conll(
        dataset: Annotated[str, typer.Argument(metavar="DATASET", help="Dataset id or path of a uCDCR folder.")],
        split: Annotated[
            str | None, typer.Option("--split", metavar="SPLIT", help="train, val or test (default: each split).")
        ] = None,
        level: Annotated[
            str,
            typer.Option("--level", metavar="LEVEL", help="document | subtopic | topic: one CoNLL document per ..."),
        ] = "document",
        mentions: Annotated[str, typer.Option("--mentions", metavar="TYPE", help="all | event | entity")] = "all",
        out: Annotated[Path, output_folder_option("--out", "Output folder (in the current folder by default).")] = Path(
            "conll"
        ),
        data_dir: DataDirOption = None,
    ) -> None:
        from ucdcr.api import dataset_dir, load
        from ucdcr.errors import UcdcrError
        from ucdcr.io.conll_export import EXPORT_FIELDS, LEVELS, export_conll

        if level not in LEVELS:
            raise UcdcrError(f"unknown level {level!r}; valid: {', '.join(LEVELS)}")
        if mentions not in ("all", "event", "entity"):
            raise UcdcrError(f"unknown --mentions {mentions!r}; valid: all, event, entity")
        folder = dataset_dir(dataset, data_dir)
        name = folder.name.lower()
        documents = load(folder, kind="documents")
        kind: Literal["event", "entity"] | None = None if mentions == "all" else mentions  # type: ignore[assignment]
        table = load(folder, mention_type=kind, columns=EXPORT_FIELDS)
        for one_split in [split] if split else list(SPLITS):
            split_mentions = table.filter(table["split"].to_numpy(zero_copy_only=False) == one_split)
            split_documents = documents.filter(documents["split"].to_numpy(zero_copy_only=False) == one_split)
            if split_documents.num_rows == 0:
                console.print(f"{name} {one_split}: no documents, nothing written", highlight=False, markup=False)
                continue
            suffix = "" if mentions == "all" else f"_{mentions}"
            path = out / f"{name}_{one_split}_{level}{suffix}.conll"
            summary = export_conll(split_mentions, split_documents, level, path)  # type: ignore[arg-type]
            console.print(
                f"wrote {path.resolve()}: {summary.documents} CoNLL documents, {summary.tokens} tokens, "
                f"{summary.mentions} mentions, {summary.chains} chains (mapping: {summary.mapping_path.name})",
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
            if summary.left_out:
                console.print(
                    f"  left out {len(summary.left_out)} mentions brackets cannot express "
                    f"(duplicates / crossing spans of one chain), listed in {summary.mapping_path.name}; "
                    f"first: {summary.left_out[0][0]}: {summary.left_out[0][1]}",
                    highlight=False,
                    markup=False,
                    soft_wrap=True,
                )
