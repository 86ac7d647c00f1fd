"""`ucdcr build DATASET...|all`: raw files -> unified format, with progress bars and a build report.

Reader options (typed and checked, :meth:`ucdcr.registry.DatasetSpec.read_options`): ``--texts DIR`` (NewsWCL50r's
option ``texts_dir``), ``--outlets a,b`` (HyperCoref's ``outlets``), ``--all-sentences`` (ECB+'s ``all_sentences``)
and the generic ``--option KEY=VALUE`` (e.g. ``--option partial=true``; no short flag: ``-o`` is ``--output`` in
every command that has one). Each dataset gets the options it declares; an
option that none of the datasets named declares, or a value of the wrong type, is an error naming the option and
the valid ones, before anything is built.

After each dataset: a summary line with the absolute output folder, the splits that were not built and the
build report's notes (stand-in files, partial input and other remarks of the reader).

``--executor local|ray [--ray-address ADDR]`` and ``--jobs N`` become one executor
(:func:`ucdcr.pipeline.build.executor_for`), made once before any dataset is read (for Ray: Ray imports, the
address answers) and used by every build; ``ray`` runs the per-document stages on Ray actors
(:mod:`ucdcr.pipeline.ray_executor`, the ``dist`` extra) instead of the local process pool; the output is the same.
The executor's errors are told in terms of these flags.

With the local executor and ``-j N`` > 1, several datasets are built at once (:mod:`ucdcr.pipeline.several`): at
most N, the largest first, each outcome printed as it comes.

Progress: one rich bar per dataset on stderr (never stdout), with the number of documents (known before parsing
starts, when the reader knows it), the elapsed time and the time left; plain lines (``progress_lines``) when stderr
is a file or a pipe; ``--quiet`` shows none.

``build all`` builds every dataset whose raw files are there; a dataset whose raw files are missing
(:class:`~ucdcr.errors.MissingRawData`) is reported with its manual steps and is not a failure. The exit code is 2
when a dataset failed otherwise, when datasets are named and any of them was not built, or when nothing at all was
built; else 0.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ucdcr.cli.common import (
    EXIT_ERROR,
    DataDirOption,
    ExecutorChoice,
    ExecutorOption,
    JobsOption,
    RawDirOption,
    RayAddressOption,
    console,
    duration_label,
    err_console,
    friendly_errors,
    input_folder_option,
    print_message,
)
from ucdcr.cli.download import expand_ids
from ucdcr.errors import UcdcrError
from ucdcr.paths import resolve_data_dir, resolve_raw_dir

if TYPE_CHECKING:
    from ucdcr.pipeline.build import ProgressCallback
    from ucdcr.pipeline.executor import Executor, ExecutorError
    from ucdcr.pipeline.several import BuildOutcome, ProgressFor
    from ucdcr.registry import ReadOptions


def register(app: typer.Typer) -> None:
    @app.command(
        "build", help="Build datasets into the unified format. Each folder gets a build_report.json of what was done."
    )
    @friendly_errors
    def _cmd(
        datasets: Annotated[
            list[str],
            typer.Argument(metavar="DATASET...", help="Dataset ids, or 'all' (skips datasets without raw files)."),
        ],
        raw_dir: RawDirOption = None,
        data_dir: DataDirOption = None,
        jobs: JobsOption = 1,
        all_sentences: Annotated[
            bool,
            typer.Option("--all-sentences", help="ECB+: keep mentions of every sentence, not only validated ones."),
        ] = False,
        texts: Annotated[
            Path | None,
            input_folder_option("--texts", "NewsWCL50r: folder of the article texts (news-please JSON files)."),
        ] = None,
        outlets: Annotated[
            str | None,
            typer.Option("--outlets", metavar="LIST", help="HyperCoref: comma-separated outlets (default bbc.com)."),
        ] = None,
        option: Annotated[
            list[str] | None,
            typer.Option("--option", metavar="KEY=VALUE", help="Reader option (repeatable), e.g. texts_dir=/path."),
        ] = None,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
        executor: ExecutorOption = ExecutorChoice.LOCAL,
        ray_address: RayAddressOption = None,
    ) -> None:
        values = reader_options(option or [], all_sentences=all_sentences, texts=texts, outlets=outlets)
        build_all = any(name.lower() == "all" for name in datasets)
        options = options_per_dataset(expand_ids(datasets), values)
        outcome = _build_all(options, raw_dir, data_dir, make_executor(executor, jobs, ray_address), quiet)
        _print_outcome(outcome)
        if not outcome["built"]:
            _print_nothing_built(outcome, resolve_raw_dir(raw_dir))
            raise typer.Exit(EXIT_ERROR)
        if outcome["failed"] or (outcome["missing"] and not build_all):
            raise typer.Exit(EXIT_ERROR)


def reader_options(
    pairs: list[str], all_sentences: bool = False, texts: Path | None = None, outlets: str | None = None
) -> dict[str, object]:
    """Reader option values by name, from the generic KEY=VALUE pairs and the named options (which win)."""
    values = parse_options(pairs)
    if all_sentences:
        values["all_sentences"] = True
    if texts is not None:
        values["texts_dir"] = texts
    if outlets:
        values["outlets"] = outlets
    return values


def parse_options(pairs: list[str]) -> dict[str, object]:
    """KEY=VALUE pairs -> reader option values, as strings (each dataset's option types convert them)."""
    values: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UcdcrError(f"--option {pair!r}: expected KEY=VALUE")
        values[key.strip()] = value
    return values


def options_per_dataset(dataset_ids: list[str], values: dict[str, object]) -> dict[str, ReadOptions]:
    """Each dataset's typed reader options from ``values``: the options it declares. An option that none of the
    datasets declares is an error listing the valid ones; a bad value is an error naming the option."""
    from ucdcr.registry import get, option_names

    specs = [get(dataset_id) for dataset_id in dataset_ids]
    declared = sorted({name for spec in specs for name in option_names(spec.options)})
    unknown = sorted(set(values) - set(declared))
    if unknown:
        raise UcdcrError(
            f"unknown reader option{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} for "
            f"{', '.join(spec.id for spec in specs)}; valid: {', '.join(declared)}"
        )
    return {
        spec.id: spec.read_options({k: v for k, v in values.items() if k in option_names(spec.options)})
        for spec in specs
    }


_FLAGS = {"kind": "--executor", "jobs": "--jobs", "ray_address": "--ray-address"}


def make_executor(kind: ExecutorChoice, jobs: int, ray_address: str | None) -> Executor:
    """The executor of the flags, made once for every build; its errors told in terms of the flags."""
    from ucdcr.pipeline.build import executor_for
    from ucdcr.pipeline.executor import ExecutorError, ExecutorKind, ExecutorOptions

    if ray_address is not None and kind is not ExecutorChoice.RAY:
        raise UcdcrError("--ray-address needs --executor ray")
    try:
        return executor_for(ExecutorOptions(ExecutorKind(kind.value), jobs, ray_address))
    except ExecutorError as exc:
        raise UcdcrError(flag_wording(exc, kind)) from exc


def flag_wording(exc: ExecutorError, kind: ExecutorChoice) -> str:
    """An executor error with the flag at fault in front (``--executor ray: the Ray executor needs Ray ...``)."""
    flag = _FLAGS.get(exc.option, "--executor")
    return f"{flag} {kind.value}: {exc}" if flag == "--executor" else f"{flag}: {exc}"


def _build_all(
    options: dict[str, ReadOptions], raw_dir: Path | None, data_dir: Path | None, executor: Executor, quiet: bool
) -> dict[str, list[str]]:
    """Build every dataset (several at once where the executor allows, :mod:`ucdcr.pipeline.several`), printing each
    outcome as it comes; the dataset ids by outcome: "built", "missing" (raw files not there) or "failed"."""
    from ucdcr.pipeline.several import BuildRequest, build_datasets

    outcome: dict[str, list[str]] = {"built": [], "missing": [], "failed": []}
    requests = [BuildRequest(dataset_id, dataset_options) for dataset_id, dataset_options in options.items()]
    with progress_bars(quiet) as progress:
        for result in build_datasets(
            requests, resolve_raw_dir(raw_dir), resolve_data_dir(data_dir), executor, progress
        ):
            outcome[_print_result(result)].append(result.dataset_id)
    return outcome


def _print_result(result: BuildOutcome) -> str:
    """Print what became of one dataset; "built", "missing" or "failed"."""
    if result.missing:
        print_message(f"{result.dataset_id}: raw files missing, not built:\n", str(result.error), style="yellow")
        return "missing"
    if result.error is not None:  # one dataset's problem does not stop the others
        print_message(f"{result.dataset_id}: not built:", str(result.error))
        return "failed"
    _print_summary(result.dataset_id, result.report)
    return "built"


PROGRESS_EVERY = 10.0
"""Seconds between two plain progress lines of one stage (a log gets one at least this often while documents go)."""


def progress_lines(every: float = PROGRESS_EVERY) -> ProgressCallback:
    """The build's progress as plain lines on stderr, for a log file or a pipe: ``[    12s] ecbplus: reading and
    parsing 320/976 documents, ETA 21s``, when a stage begins, every ``every`` seconds while it goes, and when it is
    done; the ETA from the stage's pace so far."""
    started = time.monotonic()
    stage: dict[str, float] = {}  # description -> when it began
    last = [0.0]

    def show(description: str, done: int, total: int | None) -> None:
        now = time.monotonic()
        began = stage.setdefault(description, now)
        new, finished = now == began, total is not None and done >= total
        if not (new or finished or now - last[0] >= every):
            return
        last[0] = now
        rate = done / (now - began) if done and now > began else 0.0
        eta = ""
        if total is not None and not finished:
            eta = f", ETA {duration_label((total - done) / rate)}" if rate else ", ETA ?"
        count = f"{done}/{total if total is not None else '?'} documents"
        line = f"[{duration_label(now - started):>7}] {description} {count}{eta}"
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)

    return show


@contextmanager
def progress_bars(quiet: bool) -> Iterator[ProgressFor | None]:
    """Each dataset's progress callback (a :data:`~ucdcr.pipeline.several.ProgressFor`): a rich bar per dataset on
    stderr (description, bar, done/total documents, elapsed and remaining time), drawn from the dataset's first call
    on (a dataset whose raw files are missing leaves no empty bar); None with ``quiet``; plain lines per dataset
    (:func:`progress_lines`) when stderr is no terminal. The bars are redrawn at each call (after each batch of
    documents), with no refresh thread of their own, so a build in this process runs no thread besides its own and
    may fork its token-table writer safely."""
    if quiet:
        yield None
        return
    if not err_console.is_terminal:  # a log file or a pipe: plain lines, at a steady rate
        yield lambda _: progress_lines()
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskID,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bars = Progress(  # redrawn by the callback, not by a refresh thread: the build may fork (pipeline/processes.py)
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        auto_refresh=False,
    )
    started: list[bool] = []

    def bar_of(dataset_id: str) -> ProgressCallback:
        task: list[TaskID] = []

        def show(description: str, done: int, total: int | None) -> None:
            if not started:
                bars.start()
                started.append(True)
            if not task:
                task.append(bars.add_task(description, total=total))
            bars.update(task[0], description=description, completed=done, total=total, refresh=True)

        return show

    try:
        yield bar_of
    finally:
        if started:
            bars.stop()


def _print_outcome(outcome: dict[str, list[str]]) -> None:
    if not (outcome["missing"] or outcome["failed"]):
        return
    parts = [f"{what}: {', '.join(ids)}" for what, ids in outcome.items() if ids]
    err_console.print("summary -- " + "; ".join(parts), highlight=False, soft_wrap=True, markup=False)


def _print_nothing_built(outcome: dict[str, list[str]], raw_dir: Path) -> None:
    why = "no dataset could be built" if outcome["failed"] else f"no raw files of these datasets in {raw_dir.resolve()}"
    print_message("nothing was built:", f"{why} (see above); `ucdcr datasets` shows what each dataset needs.")


def _print_summary(dataset_id: str, report: Any) -> None:
    """The summary line, the splits not built and every note of the build report (stand-ins, partial input...)."""
    counts = report.counts
    console.print(
        f"{dataset_id}: {counts['documents']} documents, {counts['mentions_written']} of "
        f"{counts['mentions_annotated']} mentions ({report.parse_rate:.2f}%), {len(report.dropped)} dropped, "
        f"{counts['tokens']} tokens in {report.seconds:.1f} s -> {Path(report.output_dir).resolve()}",
        highlight=False,
        soft_wrap=True,
        markup=False,
    )
    for split, why in report.unavailable_splits.items():
        print_message(f"{dataset_id}: split {split} not built:", why, style="yellow", to=console)
    for note in report.notes:
        print_message(f"{dataset_id}: note:", note, style="yellow", to=console)
    for difference in report.count_differences:
        print_message(f"{dataset_id}: differs from its declared counts:", difference, style="yellow", to=console)
