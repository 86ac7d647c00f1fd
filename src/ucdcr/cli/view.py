"""`ucdcr view DATASET DOC_KEY`: a self-contained HTML page of one document (see :mod:`ucdcr.report.viewer`).

Without all_documents.parquet (texts not shared) the page is rebuilt from the mentions' context windows. A page
links the pages of the other documents of its chains that this call writes (``--subtopic``) or that are already
in the same folder; the others are named with the command that writes them. Every page written is printed with
its absolute path."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ucdcr.cli.common import (
    DataDirOption,
    DatasetArgument,
    SourceChoice,
    SourceOption,
    console,
    dataset_choice,
    friendly_errors,
    output_file_option,
    print_written,
    write_problem,
)
from ucdcr.errors import UcdcrError


def register(app: typer.Typer) -> None:
    @app.command("view", help="Write an HTML page of one document. Mentions are coloured by chain.")
    @friendly_errors
    def _cmd(
        dataset: DatasetArgument,
        doc_key: Annotated[
            str, typer.Argument(metavar="DOC_KEY", help="The document's conll_doc_key, e.g. 36/36ecb/1.")
        ],
        out: Annotated[
            Path | None, output_file_option("--out", "HTML file (default: view_<doc key>.html in this folder).")
        ] = None,
        subtopic: Annotated[
            bool, typer.Option("--subtopic", help="Also write the pages of the other documents of the subtopic.")
        ] = False,
        data_dir: DataDirOption = None,
        source: SourceOption = SourceChoice.AUTO,
    ) -> None:
        from ucdcr.api import dataset_dir, load
        from ucdcr.io.atomic import write_text
        from ucdcr.report.viewer import chain_documents, page_name, render_document
        from ucdcr.schema import DOC_KEY_COLUMN, DOCUMENTS_PARQUET

        target = out or Path(page_name(doc_key))
        problem = write_problem(target)
        if problem:  # checked before the dataset is read
            raise UcdcrError(problem)
        folder = dataset_dir(dataset_choice(dataset, source, data_dir), data_dir)
        mentions = load(folder)
        documents = load(folder, kind="documents") if (folder / DOCUMENTS_PARQUET).is_file() else None
        if documents is None:
            console.print(
                f"no token table ({DOCUMENTS_PARQUET}): the page shows the mentions' context windows", highlight=False
            )
        keys = [doc_key]
        if subtopic:
            prefix = doc_key.rsplit("/", 1)[0] + "/"
            listed = mentions["conll_doc_key"] if documents is None else documents[DOC_KEY_COLUMN]
            keys += [key for key in sorted(set(listed.to_pylist())) if key.startswith(prefix) and key != doc_key]
        paths = {key: target if key == doc_key else target.parent / page_name(key) for key in keys}
        related = {key for chain_keys in chain_documents(mentions).values() for key in chain_keys}
        # links use page_name(key): a page written under another name (--out) cannot be linked to
        written = {key for key, path in paths.items() if path.name == page_name(key)}
        linked = written | {key for key in related if (target.parent / page_name(key)).is_file()}
        for key, path in paths.items():
            write_text(path, render_document(folder.name, mentions, documents, key, linked))
            print_written(path)
