"""`ucdcr export conll DATASET`: a built dataset as CoNLL-2012 key files (:func:`ucdcr.io.conll_export.export_dataset`).

Each file written is printed with its absolute path."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ucdcr.cli.common import DataDirOption, console, friendly_errors, output_folder_option


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
        from ucdcr.io.conll_export import export_dataset

        export = export_dataset(dataset, out, split=split, level=level, mentions=mentions, data_dir=data_dir)
        for one_split, summary in export.splits.items():
            if summary is None:
                console.print(
                    f"{export.dataset} {one_split}: no documents, nothing written", highlight=False, markup=False
                )
                continue
            console.print(
                f"wrote {summary.conll_path.resolve()}: {summary.documents} CoNLL documents, {summary.tokens} tokens, "
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
