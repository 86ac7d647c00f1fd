"""`ucdcr build DATASET...|all`: raw files -> unified format, with progress bars and a build report."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ucdcr.cli.common import DataDirOption, JobsOption, RawDirOption, console, err_console, friendly_errors
from ucdcr.cli.download import expand_ids
from ucdcr.errors import UcdcrError
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
        option: Annotated[
            list[str] | None,
            typer.Option("--option", "-o", help="Reader option KEY=VALUE (repeatable), e.g. texts_dir=/path."),
        ] = None,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    ) -> None:
        from ucdcr.pipeline.build import build_dataset
        from ucdcr.registry import ReadOptions

        extra = parse_options(option or [])
        if all_sentences:
            extra["all_sentences"] = True
        options = ReadOptions(extra=extra)
        failed = []
        for dataset_id in expand_ids(datasets):
            try:
                report = build_dataset(
                    dataset_id,
                    raw_dir=resolve_raw_dir(raw_dir),
                    data_dir=resolve_data_dir(data_dir),
                    jobs=jobs,
                    progress=not quiet,
                    options=options,
                )
            except UcdcrError as exc:  # one dataset's problem does not stop the others
                failed.append(dataset_id)
                err_console.print(f"[bold red]{dataset_id}: not built:[/] {exc}", highlight=False)
                continue
            _print_summary(dataset_id, report)
        if failed:
            raise typer.Exit(2)


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """KEY=VALUE pairs -> reader options ("true"/"false" become booleans)."""
    extra: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UcdcrError(f"--option {pair!r}: expected KEY=VALUE")
        extra[key] = {"true": True, "false": False}.get(value.lower(), value)
    return extra


def _print_summary(dataset_id: str, report: Any) -> None:
    counts = report.counts
    console.print(
        f"{dataset_id}: {counts['documents']} documents, {counts['mentions_written']} of "
        f"{counts['mentions_annotated']} mentions ({report.parse_rate:.2f}%), {len(report.dropped)} dropped, "
        f"{counts['tokens']} tokens in {report.seconds:.1f} s -> {report.output_dir}",
        highlight=False,
    )
    for split, why in report.unavailable_splits.items():
        console.print(f"{dataset_id}: split {split} not built: {why}", highlight=False)
