"""`ucdcr export FORMAT DATASET`: a built dataset in the formats other tools read.

- ``conll``: CoNLL-2012 key files (:func:`ucdcr.export.conll.export_dataset`);
- ``hf``: a Hugging Face dataset folder (:func:`ucdcr.export.huggingface.export_hf`, ``hf`` extra);
- ``spacy``: a spaCy ``DocBin`` with the chains as span groups (:func:`ucdcr.export.spacy_docs.export_spacy`);
- ``corefud``: CoNLL-U with CorefUD's ``Entity`` annotation (:func:`ucdcr.export.corefud.export_corefud`).

Each file written is printed with its absolute path. An export creates or replaces only what an export wrote, never
in a data dir, raw dir or dataset folder (:mod:`ucdcr.export.target`); a folder export that fails leaves ``--out`` as
it was, as far as it wrote nothing (:func:`out_as_it_was`)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from ucdcr.cli.common import (
    DataDirOption,
    DatasetArgument,
    ExportLevelChoice,
    MentionsChoice,
    SourceChoice,
    SourceOption,
    console,
    dataset_choice,
    friendly_errors,
    output_file_option,
    output_folder_option,
    print_written,
)

SplitOption = Annotated[
    str | None, typer.Option("--split", metavar="SPLIT", help="train, val or test (default: every split).")
]


class ChainKeyChoice(StrEnum):
    """The --chains choices of `ucdcr export conll` (:data:`ucdcr.export.conll.CHAIN_KEYS`)."""

    KIND = "kind"
    ID = "id"


def register(app: typer.Typer) -> None:
    export_app = typer.Typer(help="Export built datasets to other formats.", no_args_is_help=True)
    app.add_typer(export_app, name="export")

    @export_app.command("conll", help="Write CoNLL-2012 files. Integer chain ids, plus a JSON chain mapping.")
    @friendly_errors
    def _conll(
        dataset: DatasetArgument,
        split: SplitOption = None,
        level: Annotated[
            ExportLevelChoice,
            typer.Option("--level", case_sensitive=False, help="One CoNLL document per document, subtopic or topic."),
        ] = ExportLevelChoice.DOCUMENT,
        mentions: Annotated[
            MentionsChoice,
            typer.Option("--mentions", case_sensitive=False, help="All mentions, or only the event or entity ones."),
        ] = MentionsChoice.ALL,
        out: Annotated[Path, output_folder_option("--out", "Output folder (in the current folder by default).")] = Path(
            "conll"
        ),
        data_dir: DataDirOption = None,
        source: SourceOption = SourceChoice.AUTO,
        remove_singletons: Annotated[
            bool,
            typer.Option(
                "--remove-singletons",
                help="Leave out every chain with one mention in its CoNLL document (as `ucdcr score "
                "--remove-singletons` and coval remove them); listed in the mapping file.",
            ),
        ] = False,
        chains: Annotated[
            ChainKeyChoice,
            typer.Option(
                "--chains",
                case_sensitive=False,
                help="kind (default): one chain per kind and chain id, the standard protocol's key (an event and an "
                "entity never share a chain); id: one chain per chain id, the ucdcr protocol's key (as the authors' "
                "code reads it). They differ only where a chain id holds both kinds (ECB+: 2 test chains).",
            ),
        ] = ChainKeyChoice.KIND,
    ) -> None:
        from ucdcr.export.conll import export_dataset

        with out_as_it_was(out):
            export = export_dataset(
                dataset_choice(dataset, source, data_dir),
                out,
                split=split,
                level=level.value,
                mentions=mentions.value,
                data_dir=data_dir,
                remove_singletons=remove_singletons,
                chains=chains.value,
            )
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
            if summary.removed_singletons:
                console.print(
                    f"  removed {len(summary.removed_singletons)} singleton mentions (chains with one mention in "
                    f"their CoNLL document), listed in {summary.mapping_path.name}",
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

    @export_app.command(
        "hf",
        help="Write a Hugging Face dataset folder that `datasets.load_dataset(OUT)` and `datasets.load_from_disk(OUT)` "
        "both open: Parquet per split (configs mentions and documents) with a dataset card, and the save_to_disk "
        "copy (the tokens' in OUT/documents). Needs the hf extra.",
    )
    @friendly_errors
    def _hf(
        dataset: DatasetArgument,
        out: Annotated[
            Path,
            output_folder_option("--out", "Output folder: new, empty, or an earlier export's (replaced as a whole)."),
        ],
        data_dir: DataDirOption = None,
        source: SourceOption = SourceChoice.AUTO,
    ) -> None:
        from ucdcr.export.huggingface import export_hf

        export = export_hf(dataset_choice(dataset, source, data_dir), out, data_dir=data_dir)
        for kind, rows in export.rows.items():
            shown = ", ".join(f"{split} {count}" for split, count in rows.items())
            console.print(f"{kind}: {shown} rows", highlight=False, markup=False)
        for note in export.notes:
            console.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)
        for line in export.how_to_open():
            console.print(line, highlight=False, markup=False, soft_wrap=True)
        print_written(export.folder)

    @export_app.command(
        "spacy",
        help="Write a spaCy DocBin: one Doc per document with sentences, the heads' POS / lemma / NER, and every "
        "chain as a span group (span id = mention id).",
    )
    @friendly_errors
    def _spacy(
        dataset: DatasetArgument,
        out: Annotated[Path, output_file_option("--out", "Output file (.spacy).")],
        split: SplitOption = None,
        data_dir: DataDirOption = None,
        source: SourceOption = SourceChoice.AUTO,
    ) -> None:
        from ucdcr.export.spacy_docs import export_spacy

        export = export_spacy(dataset_choice(dataset, source, data_dir), out, split=split, data_dir=data_dir)
        console.print(
            f"{export.documents} documents, {export.mentions} mentions, {export.chains} chains",
            highlight=False,
            markup=False,
        )
        _print_left_out(export.left_out)
        print_written(export.path)

    @export_app.command(
        "corefud",
        help="Write CoNLL-U with CorefUD's Entity annotation (one file per split, written by udapi; entity ids "
        "shared across documents, each document under '# newdoc id'). Needs the corefud extra.",
    )
    @friendly_errors
    def _corefud(
        dataset: DatasetArgument,
        split: SplitOption = None,
        out: Annotated[Path, output_folder_option("--out", "Output folder (in the current folder by default).")] = Path(
            "corefud"
        ),
        data_dir: DataDirOption = None,
        source: SourceOption = SourceChoice.AUTO,
    ) -> None:
        from ucdcr.export.corefud import export_corefud

        with out_as_it_was(out):
            export = export_corefud(dataset_choice(dataset, source, data_dir), out, split=split, data_dir=data_dir)
        for one_split, summary in export.splits.items():
            if summary is None:
                console.print(f"{export.dataset} {one_split}: no documents, nothing written", highlight=False)
                continue
            console.print(
                f"{one_split}: {summary.documents} documents, {summary.sentences} sentences, {summary.mentions} "
                f"mentions, {summary.entities} entities (mapping: {summary.mapping_path.name})",
                highlight=False,
                markup=False,
            )
            _print_left_out(summary.left_out)
            print_written(summary.path)


@contextlib.contextmanager
def out_as_it_was(out: Path) -> Iterator[None]:
    """A folder export that fails leaves ``out`` as it was as far as nothing was written: the marker no longer lists
    files that were never written (it is removed when it lists none and was not there before), and a folder the
    export created is removed when nothing else is in it. Files of the user are never touched."""
    from ucdcr.errors import UcdcrError
    from ucdcr.export.target import MARKER, mark, marked_files

    existed = os.path.lexists(out)
    before = marked_files(out) if existed else None
    try:
        yield
    except BaseException:
        with contextlib.suppress(OSError, UcdcrError):  # tidying only: the export's own error is what is told
            after = marked_files(out) if out.is_dir() else None
            if after is not None and after != before:
                kept = {name for name in after if (before and name in before) or os.path.lexists(out / name)}
                if kept or before is not None:
                    mark(out, kept)
                else:
                    (out / MARKER).unlink()
            if not existed and out.is_dir() and not any(out.iterdir()):
                out.rmdir()
        raise


def _print_left_out(left_out: list[tuple[str, str]]) -> None:
    if left_out:
        mention_id, reason = left_out[0]
        console.print(
            f"  left out {len(left_out)} mentions; first: {mention_id}: {reason}",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
