"""`ucdcr benchmark`: fit, tune and test CDCR systems on every built dataset (:mod:`ucdcr.systems.framework.runner`).

Tables on stdout (:mod:`ucdcr.report.benchmark_tables`), progress, the systems' messages (a cross-encoder's training
progress) and the timing line on stderr.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from ucdcr.cli.common import (
    DEFAULT_RESAMPLES,
    DEFAULT_SIGNIFICANCE,
    MAX_SEEDS,
    CacheDirOption,
    DataDirOption,
    DatasetsOption,
    ExecutorChoice,
    ExecutorOption,
    FormatOption,
    JobsOption,
    LevelOption,
    OutputOption,
    ProtocolChoice,
    ProtocolOption,
    RayAddressOption,
    ReferencesChoice,
    ReferencesOption,
    RemoveSingletonsOption,
    ResamplesOption,
    SignificanceOption,
    SourceChoice,
    SourceOption,
    TopicsChoice,
    TopicsOption,
    check_format,
    check_significance,
    console,
    err_console,
    friendly_errors,
    output_folder_option,
    protocol_of,
    selected_datasets,
    step_log,
)
from ucdcr.errors import UcdcrError
from ucdcr.systems.framework.names import BUILTIN, default_systems

if TYPE_CHECKING:
    from ucdcr.systems.framework.plan import Schedule


def systems_help() -> str:
    """The help's paragraph on systems: the built-in systems, the default ones first, and the extras they need, all
    read from the registry (:data:`~ucdcr.systems.framework.names.BUILTIN`, a module that imports no system)."""
    default = default_systems()
    opt_in = [name for name, builtin in BUILTIN.items() if not builtin.default]
    extras: dict[str, list[str]] = {}
    for name, builtin in BUILTIN.items():
        if builtin.extra:
            extras.setdefault(builtin.extra, []).append(name)
    needs = "; ".join(
        f"{_listed(names)} need{'s' if len(names) == 1 else ''} `{extra}`" for extra, names in extras.items()
    )
    opt = f" and the opt-in {_listed(opt_in)} (named with --systems)" if opt_in else ""
    return (
        f"Systems: the reference systems {_listed(default)} (the default){opt}; extras: {needs}. Also the systems of "
        "the entry-point group ucdcr.systems, or your own as module:attribute (a ucdcr.systems.System subclass)."
    )


def _listed(names: list[str]) -> str:
    return " and ".join(names) if len(names) < 3 else f"{', '.join(names[:-1])} and {names[-1]}"


HELP = (
    "Benchmark CDCR systems: fit on each dataset's train split, tune on its val split, predict its test split, "
    "score with the chosen protocol (as `ucdcr evaluate`): --protocol ucdcr (the paper's, default) or standard "
    "(the published ECB+ results': every gold mention, singletons kept, clustering within topics, one "
    "meta-document). A system sees every test mention without gold-derived fields.\n\n"
    f"{systems_help()} A dataset without a train split uses the "
    "model fitted on the dataset with the most training mentions, tuned on its own val split; the models table "
    "says which splits every number used. Results and encodings are stored in the cache dir and reused by later "
    "runs and by `ucdcr report`; --forget NAME removes a system's stored results."
)


def register(app: typer.Typer) -> None:
    @app.command("benchmark", help=HELP)
    @friendly_errors
    def _cmd(
        systems: Annotated[
            str | None,
            typer.Option(
                "--systems",
                metavar="NAMES",
                help="Comma-separated system names or module:attribute (default: the reference systems but the "
                "opt-in ones).",
            ),
        ] = None,
        data_dir: DataDirOption = None,
        datasets: DatasetsOption = None,
        source: SourceOption = SourceChoice.AUTO,
        protocol: ProtocolOption = ProtocolChoice.UCDCR,
        level: LevelOption = None,
        topics: TopicsOption = TopicsChoice.GOLD,
        remove_singletons: RemoveSingletonsOption = False,
        fmt: FormatOption = None,
        transfer: Annotated[
            bool, typer.Option("--transfer", help="Also fit on each dataset and test on every other (matrix).")
        ] = False,
        cache_dir: CacheDirOption = None,
        recompute: Annotated[
            bool, typer.Option("--recompute", help="Do not reuse stored results (encodings stay cached).")
        ] = False,
        output: OutputOption = None,
        seeds: Annotated[
            int,
            typer.Option(
                "--seeds",
                min=1,
                max=MAX_SEEDS,
                help="Fit every trainable system with seeds 0 .. N-1 and show the mean over seeds, its interval and "
                "the sd over seeds (default: seed 0 only).",
            ),
        ] = 1,
        resamples: ResamplesOption = DEFAULT_RESAMPLES,
        significance: SignificanceOption = DEFAULT_SIGNIFICANCE,
        references: ReferencesOption = ReferencesChoice.SHIPPED,
        each: Annotated[
            bool,
            typer.Option(
                "--each", help="Also compare each system run with each reference system (paired), not only the best."
            ),
        ] = False,
        jobs: JobsOption = 1,
        executor: ExecutorOption = ExecutorChoice.LOCAL,
        ray_address: RayAddressOption = None,
        val_only: Annotated[
            bool,
            typer.Option(
                "--val-only",
                help="Development: fit and tune every system and print what it learned with its val score (the "
                "models table), predicting and scoring nothing on the test split and storing nothing.",
            ),
        ] = False,
        save_predictions: Annotated[
            Path | None,
            output_folder_option(
                "--save-predictions",
                "Write every run's test predictions into DIR/<protocol>/<system>/<dataset>.seed<N>.json, a file "
                "`ucdcr evaluate` reads back to the run's scores (runs stored without them are computed again).",
            ),
        ] = None,
        forget: Annotated[
            str | None,
            typer.Option(
                "--forget",
                metavar="NAME",
                help="Run nothing: remove every stored result of the system NAME (every dataset, protocol and "
                "seed) from the cache dir's results file, so that `ucdcr report` no longer shows it.",
            ),
        ] = None,
    ) -> None:
        if forget is not None:
            if systems is not None:
                raise UcdcrError("--forget runs no benchmark: give it without --systems")
            _forget(forget, cache_dir)
            return
        from ucdcr.cli.build import make_executor
        from ucdcr.report.benchmark_tables import benchmark_tables, models_table
        from ucdcr.report.tables import print_tables
        from ucdcr.systems.framework.placement import place_runs
        from ucdcr.systems.framework.runner import benchmark
        from ucdcr.systems.framework.runner import save_predictions as save_predictions_of

        check_format(fmt)
        check_significance(significance)
        chosen = protocol_of(protocol, level, topics, remove_singletons)
        names = [name.strip() for name in systems.split(",") if name.strip()] if systems else default_systems()
        folders = selected_datasets(data_dir, datasets, source)
        runner = make_executor(executor, jobs, ray_address)
        with progress_display() as display, system_messages(err_console):
            result = benchmark(
                names,
                folders,
                chosen,
                transfer,
                cache_dir,
                display.show,
                recompute,
                seeds,
                save_predictions is not None,
                not val_only,
                display.plan,
                runner,
            )
        if val_only:
            if save_predictions is not None:
                raise UcdcrError("--val-only predicts nothing on the test split: give it without --save-predictions")
            table = models_table(result.runs, result.systems, result.datasets)
            table.notes.append("--val-only: nothing was predicted or scored on the test split; nothing was stored.")
            print_tables([table], fmt, console, output)
            return
        placement = place_runs(
            result.runs,
            result.systems,
            chosen,
            references.value,
            result.results_file.parent if result.results_file else None,
            resamples,
            significance,  # type: ignore[arg-type]
            each,
            datasets=result.datasets,
            label="this benchmark",
        )
        print_tables(benchmark_tables(result, resamples, significance, placement), fmt, console, output)  # type: ignore[arg-type]
        if save_predictions is not None:
            written = save_predictions_of(result, save_predictions)
            err_console.print(
                f"wrote the test predictions of {len(written)} runs into {save_predictions.resolve()}",
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
        err_console.print(
            f"{len(result.runs)} runs ({result.reused} reused from {result.results_file}) in {result.seconds:.1f} s, "
            f"{result.encoding_seconds:.1f} s of it encoding",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
        user = [name for name in result.systems if name not in BUILTIN]
        if user and result.results_file is not None:
            err_console.print(_forget_hint(user, result.results_file), highlight=False, markup=False, soft_wrap=True)


def _forget(name: str, cache_dir: Path | None) -> None:
    """``--forget NAME``: remove the stored runs of NAME and say how many, from which file."""
    from ucdcr.systems.framework.cache import default_cache_dir
    from ucdcr.systems.framework.store import ResultStore

    store = ResultStore(cache_dir if cache_dir is not None else default_cache_dir())
    removed = store.forget(name)
    left = len(store.runs())
    console.print(
        f"removed {removed} stored run{'s' if removed != 1 else ''} of {name} from {store.path} ({left} left)",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )


def _forget_hint(user: list[str], results_file: Path) -> str:
    """The last line after a benchmark of user systems: where their runs are stored and how to remove them."""
    from ucdcr.systems.framework.store import forget_command

    commands = " and ".join(f"`{forget_command(name, results_file.parent)}`" for name in user)
    return (
        f"user system{'s' if len(user) > 1 else ''} {', '.join(user)}: stored in {results_file} and shown by "
        f"`ucdcr report --references local` of these datasets; remove with {commands}"
    )


HEARTBEAT = 30.0
"""Seconds of quiet after which a log gets a line anyway: the step still running, and for how long
(:func:`~ucdcr.cli.common.step_log`)."""


@dataclass
class Display:
    """The benchmark's progress on stderr (:func:`progress_display`): ``show`` for each step, ``plan`` for the
    schedule before the work."""

    show: Callable[[str, int, int], None]
    plan: Callable[[Schedule], None]


@contextmanager
def progress_display() -> Iterator[Display]:
    """The benchmark's progress on stderr. First the plan (:class:`~ucdcr.systems.framework.plan.Schedule`: what
    is reused, what is computed, the estimated time on this machine). Then on a terminal a bar; elsewhere (a log
    file, a pipe) one plain line per step (:func:`~ucdcr.cli.common.step_log`), ``[  1m05s] pairwise: predict
    ecbplus (3/35 runs done, ETA 2m10s)``, the ETA from the plan's estimate when it has one, else from the runs done
    so far, a step of a second or more followed by its time; and after 30 s without a line (a long fit), a line
    saying what still runs and since when, so that a log never goes quiet longer."""
    planned: list[Schedule] = []

    def plan(schedule: Schedule) -> None:
        planned.append(schedule)
        for line in schedule.lines():
            err_console.print(line, markup=False, highlight=False, soft_wrap=True)

    if err_console.is_terminal:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=err_console, transient=True) as bar:
            task = bar.add_task("loading", total=None)
            yield Display(
                lambda description, done, total: bar.update(task, description=description, completed=done, total=total),
                plan,
            )
        return
    started = time.monotonic()
    with step_log(every=HEARTBEAT) as lines:

        def eta(elapsed: float, done: int, total: int) -> str:
            estimate = planned[0].estimate() if planned else None
            if estimate is not None and 0 < done < total:
                return f", ETA {_duration(max(estimate - elapsed, 0.0))}"
            return f", ETA {_duration(elapsed / done * (total - done))}" if 0 < done < total else ""

        def say(description: str, done: int, total: int) -> None:
            lines(f"{description} ({done}/{total} runs done{eta(time.monotonic() - started, done, total)})")

        yield Display(say, plan)


def _duration(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest:02d}s" if minutes else f"{rest}s"


@contextmanager
def system_messages(console: Console) -> Iterator[None]:
    """What systems log at INFO and above under ``ucdcr.systems`` (a cross-encoder's training progress with its
    ETA), printed unwrapped on ``console`` (above the bar) while the block runs."""
    logger = logging.getLogger("ucdcr.systems")
    handler = _ConsoleHandler(console)
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


class _ConsoleHandler(logging.Handler):
    def __init__(self, console: Console) -> None:
        super().__init__(logging.INFO)
        self.console = console

    def emit(self, record: logging.LogRecord) -> None:
        self.console.print(record.getMessage(), highlight=False, markup=False, soft_wrap=True)
