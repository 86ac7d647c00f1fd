"""`ucdcr build DATASET...|all`: raw files -> unified format, with progress bars and a build report."""

from __future__ import annotations

from typing import Annotated

import typer

from ucdcr.cli.common import DataDirOption, JobsOption, RawDirOption, console, friendly_errors
from ucdcr.cli.download import expand_ids
from ucdcr.paths import resolve_data_dir, resolve_raw_dir


def register(app: typer.Typer) -> None:
    @app.command("build", help="Build datasets into the unified format (see build_report.json in each folder).")
    @friendly_errors
    def _cmd(
        datasets: Annotated[list[str], typer.Argument(help="Dataset ids, or 'all'.")],
        raw_dir: RawDirOption = None,
        data_dir: DataDirOption = None,
        jobs: JobsOption = 1,
        all_sentences: Annotated[
            bool,
            typer.Option("--all-sentences", help="ECB+: keep mentions of every sentence, not only validated ones."),
        ] = False,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    ) -> None:
        from ucdcr.pipeline.build import build_dataset
        from ucdcr.registry import ReadOptions

        options = ReadOptions(extra={"all_sentences": True} if all_sentences else {})
        for dataset_id in expand_ids(datasets):
            report = build_dataset(
                dataset_id,
                raw_dir=resolve_raw_dir(raw_dir),
                data_dir=resolve_data_dir(data_dir),
                jobs=jobs,
                progress=not quiet,
                options=options,
            )
            counts = report.counts
            console.print(
                f"{dataset_id}: {counts['documents']} documents, {counts['mentions_written']} of "
                f"{counts['mentions_annotated']} mentions ({report.parse_rate:.2f}%), {len(report.dropped)} dropped, "
                f"{counts['tokens']} tokens in {report.seconds:.1f} s -> {report.output_dir}",
                highlight=False,
            )
            for split, why in report.unavailable_splits.items():
                console.print(f"{dataset_id}: split {split} not built: {why}", highlight=False)
