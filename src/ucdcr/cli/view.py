"""`ucdcr view DATASET DOC_KEY`: a self-contained HTML page of one document (see :mod:`ucdcr.report.viewer`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ucdcr.cli.common import DataDirOption, console, friendly_errors


def register(app: typer.Typer) -> None:
    @app.command("view", help="Write an HTML page of one document, mentions coloured by chain.")
    @friendly_errors
    def _cmd(
        dataset: Annotated[str, typer.Argument(help="Dataset id or path of a uCDCR folder.")],
        doc_key: Annotated[str, typer.Argument(help="The document's conll_doc_key, e.g. 36/36ecb/1.")],
        out: Annotated[
            Path | None, typer.Option("--out", help="HTML file (default: view_<doc key>.html here).")
        ] = None,
        subtopic: Annotated[
            bool, typer.Option("--subtopic", help="Also write the pages of the other documents of the subtopic.")
        ] = False,
        data_dir: DataDirOption = None,
    ) -> None:
        from ucdcr.api import dataset_dir, load
        from ucdcr.io.conll_export import write_text_atomic
        from ucdcr.report.viewer import page_name, render_document

        folder = dataset_dir(dataset, data_dir)
        mentions, documents = load(folder), load(folder, kind="documents")
        target = out or Path(page_name(doc_key))
        keys = [doc_key]
        if subtopic:
            prefix = doc_key.rsplit("/", 1)[0] + "/"
            all_keys = sorted(set(documents["topic/subtopic_name/doc"].to_pylist()))
            keys += [key for key in all_keys if key.startswith(prefix) and key != doc_key]
        for key in keys:
            path = target if key == doc_key else target.parent / page_name(key)
            write_text_atomic(path, render_document(folder.name, mentions, documents, key))
            console.print(f"wrote {path}", highlight=False)
