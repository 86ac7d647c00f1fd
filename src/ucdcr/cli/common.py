"""Shared CLI pieces: the consoles, how errors are told, the common options and the dataset / format selection.

Errors: a :class:`~ucdcr.errors.UcdcrError` is one line ``error: <message>`` and exit code 2 (:func:`friendly_errors`,
and the app-level handler in :mod:`ucdcr.cli.app` for any command); an unexpected exception is one line naming the
command, the exception type and message and where it was raised, a line saying where to report it, exit code 70
(``EX_SOFTWARE`` of sysexits.h), and the traceback only with ``ucdcr --debug`` or env ``UCDCR_DEBUG=1``
(:func:`print_unexpected`); Ctrl-C is one line and exit code 130. Messages are printed verbatim, never read as rich
markup. A command that writes files prints their absolute paths (:func:`print_written`).

Only typer, rich and light ucdcr modules are imported here: every `ucdcr` call imports this module.
"""

from __future__ import annotations

import functools
import os
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.text import Text

from ucdcr.errors import UcdcrError
from ucdcr.paths import check_usable, platform_dir, unusable

if TYPE_CHECKING:
    from ucdcr.analysis.protocol import Protocol

console = Console()
err_console = Console(stderr=True)

DEBUG_ENV = "UCDCR_DEBUG"

EXIT_ERROR = 2  # a UcdcrError (bad input, missing files) or a usage error
EXIT_BUG = 70  # an unexpected exception (sysexits.h EX_SOFTWARE)
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)

F = TypeVar("F", bound=Callable[..., Any])


def print_message(label: str, text: str, style: str = "bold red", to: Console | None = None) -> None:
    """``label`` in ``style`` followed by ``text`` as it is (brackets in ``text`` are not rich markup), unwrapped."""
    separator = "" if label.endswith("\n") else " "
    (to or err_console).print(Text.assemble((label, style), separator, text), soft_wrap=True, highlight=False)


def duration_label(seconds: float) -> str:
    """``1m05s`` or ``42s``: an elapsed time or ETA in a progress line."""
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest:02d}s" if minutes else f"{rest}s"


class StepLines:
    """A printer of plain progress lines for a command's steps, ``[    12s] reading the release``: the time since it
    was made, then the step, on stderr (a terminal or a log file alike); a step that took a second or more is given
    its own time on the next line, ``[    31s] t-SNE map of mentions: done in 19.0 s``. :meth:`quiet_for` with
    :meth:`still` lets a heartbeat say that a long step still runs (:func:`step_log`)."""

    def __init__(self, to: Console | None = None) -> None:
        self.to = to
        self.started = self.last = time.monotonic()
        self.step: tuple[str, float] | None = None
        self.lock = threading.Lock()

    def __call__(self, step: str) -> None:
        with self.lock:
            now = time.monotonic()
            if self.step is not None and now - self.step[1] >= 1.0:
                self._line(f"{self.step[0]}: done in {now - self.step[1]:.1f} s", now)
            self.step = (step, now)
            self._line(step, now)

    def quiet_for(self) -> float:
        return time.monotonic() - self.last

    def still(self) -> None:
        """A line saying the current step still runs, and for how long."""
        with self.lock:
            if self.step is not None:
                now = time.monotonic()
                self._line(f"{self.step[0]}: still running ({duration_label(now - self.step[1])})", now)

    def _line(self, text: str, now: float) -> None:
        label = f"[{duration_label(now - self.started):>7}] "
        (self.to or err_console).print(label + text, markup=False, highlight=False, soft_wrap=True)
        self.last = now


def step_lines(to: Console | None = None) -> Callable[[str], None]:
    """A :class:`StepLines` printer."""
    return StepLines(to)


HEARTBEAT = 30.0
"""Seconds of quiet after which a log hears that the step still runs (:func:`step_log`)."""


@contextmanager
def step_log(to: Console | None = None, every: float = HEARTBEAT) -> Iterator[StepLines]:
    """:class:`StepLines` with a heartbeat: after ``every`` seconds without a line, a line says the step still
    runs, so that a log never goes quiet longer while the command works."""
    lines = StepLines(to)
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(min(1.0, every)):
            if lines.quiet_for() >= every:
                lines.still()

    thread = threading.Thread(target=beat, name="ucdcr-heartbeat", daemon=True)
    thread.start()
    try:
        yield lines
    finally:
        stop.set()
        thread.join()


def print_error(exc: UcdcrError) -> None:
    """The one line a UcdcrError becomes."""
    print_message("error:", str(exc))


def friendly_errors(func: F) -> F:
    """Print a UcdcrError as one clear line (no traceback) and exit 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except UcdcrError as exc:
            print_error(exc)
            raise typer.Exit(EXIT_ERROR) from None

    return wrapper  # type: ignore[return-value]


def print_unexpected(exc: BaseException, command: str, debug: bool) -> None:
    """What an exception that is not a UcdcrError becomes: (the traceback with ``debug``), one line naming the
    command, the exception and where it was raised, then where to report it and how to see the traceback."""
    if debug:
        err_console.print(Text("".join(traceback.format_exception(exc))), soft_wrap=True, highlight=False)
    message = " ".join(str(exc).split()) or "(no message)"
    where = raised_at(exc)
    print_message(
        "error:",
        f"`{command}` failed unexpectedly: {type(exc).__name__}: {message}" + (f" (at {where})" if where else ""),
    )
    rerun = command.replace("ucdcr", "ucdcr --debug", 1)
    hint = "" if debug else f", with the traceback that `{rerun} ...` (or {DEBUG_ENV}=1) prints"
    print_message("This is a bug in ucdcr:", f"please report it to {issue_tracker()}{hint}.", style="bold")


def issue_tracker() -> str:
    """Where to report bugs: the package's declared issue tracker (``[project.urls]`` "Issues" in pyproject.toml,
    read from the installed metadata), else the maintainers named in the package metadata."""
    from importlib import metadata

    try:
        meta = metadata.metadata("ucdcr")
    except metadata.PackageNotFoundError:
        return "the ucdcr maintainers"
    for entry in meta.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("issues", "bug tracker", "tracker"):
            return url.strip()
    return "the ucdcr maintainers"


def raised_at(exc: BaseException) -> str:
    """``package/module.py:line in function`` of the innermost frame of the exception's traceback."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    frame = frames[-1]
    path = Path(frame.filename)
    try:  # inside ucdcr: from the package on (a checkout's own folder name, even "ucdcr", does not count)
        short = path.resolve().relative_to(_PACKAGE_PARENT).as_posix()
    except ValueError:  # elsewhere (a library, a test): its folder and file
        short = "/".join(path.parts[-2:])
    return f"{short}:{frame.lineno} in {frame.name}"


_PACKAGE_PARENT = Path(__file__).resolve().parents[2]


def print_written(*paths: Path, what: str = "wrote", to: Console | None = None) -> None:
    """Tell where output went: ``wrote <absolute path>`` for each path."""
    for path in paths:
        (to or console).print(Text(f"{what} {Path(path).resolve()}"), soft_wrap=True, highlight=False)


def _folder_or_absent(value: Path | None) -> Path | None:
    """A folder option may name a folder or nothing yet, never a file."""
    if value is not None:
        check_usable(value)
    if value is not None and value.exists() and not value.is_dir():
        raise UcdcrError(f"{value} is a file, not a folder")
    return value


def _existing_folder(value: Path | None) -> Path | None:
    """A folder to read from must be there."""
    _folder_or_absent(value)
    if value is not None and not value.exists():
        raise UcdcrError(f"{value} does not exist")
    return value


def _writable_folder(value: Path | None) -> Path | None:
    """A folder to write into, checked before any work (see :func:`write_problem`)."""
    problem = write_problem(value, folder=True) if value is not None else None
    if problem:
        raise UcdcrError(problem)
    return value


def _writable_file(value: Path | None) -> Path | None:
    """A file to write, checked before any work (see :func:`write_problem`)."""
    problem = write_problem(value) if value is not None else None
    if problem:
        raise UcdcrError(problem)
    return value


def write_problem(path: Path, folder: bool = False) -> str | None:
    """Why ``path`` (a file, or with ``folder`` a folder to write into) cannot be written, or None, before any
    work: a file where a folder belongs or the other way round, a nearest existing folder we may not write in or
    that refuses a new entry (a folder is made there and removed at once), a symlink loop or a path longer than the
    system allows."""
    problem = unusable(path)
    if problem:
        return problem
    if path.exists() and path.is_dir() != folder:
        return f"{path} is a file, not a folder" if folder else f"{path} is a folder, not a file"
    place = path if folder and path.is_dir() else path.parent
    while not place.exists() and place != place.parent:
        place = place.parent
    if not place.is_dir():
        return f"cannot write {path}: {place} is a file, not a folder"
    if not os.access(place, os.W_OK | os.X_OK):
        return f"cannot write {path}: no permission to write in {place}"
    return _probe(path, place)


def _probe(path: Path, place: Path) -> str | None:
    """Whether a folder can really be made in ``place`` (a pseudo file system such as /proc passes the permission
    check, then refuses the first write): one made and removed at once."""
    import tempfile

    try:
        os.rmdir(tempfile.mkdtemp(prefix=".ucdcr-write-check-", dir=place))
    except OSError as exc:
        return f"cannot write {path}: {place} refuses new files ({exc.strerror or exc})"
    return None


DataDirOption = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        envvar="UCDCR_DATA_DIR",
        metavar="DIR",
        callback=_folder_or_absent,
        help=f"Folder of built datasets (default: {platform_dir('data')}).",
    ),
]
DatasetArgument = Annotated[str, typer.Argument(metavar="DATASET", help="Dataset id or path of a uCDCR folder.")]
RawDirOption = Annotated[
    Path | None,
    typer.Option(
        "--raw-dir",
        envvar="UCDCR_RAW_DIR",
        metavar="DIR",
        callback=_folder_or_absent,
        help=f"Folder of raw downloads (default: {platform_dir('raw')}).",
    ),
]
DatasetsOption = Annotated[
    str | None,
    typer.Option("--datasets", metavar="IDS", help="Comma-separated dataset ids (default: every built dataset)."),
]
MAX_JOBS = 256
MAX_SEEDS = 100
JobsOption = Annotated[int, typer.Option("--jobs", "-j", min=1, max=MAX_JOBS, metavar="N", help="Worker processes.")]


class FormatChoice(StrEnum):
    """The --format choices: the table formats of :data:`ucdcr.report.tables.FORMATS`."""

    MD = "md"
    CSV = "csv"
    JSON = "json"
    LATEX = "latex"


FORMATS = tuple(choice.value for choice in FormatChoice)
"""``ucdcr.report.tables.FORMATS``, written out (as :class:`FormatChoice`) so that start-up does not import the
tables and rich's table layout (a test checks)."""


class ExecutorChoice(StrEnum):
    """The --executor choices (:class:`ucdcr.pipeline.executor.ExecutorKind`)."""

    LOCAL = "local"
    RAY = "ray"


FormatOption = Annotated[
    FormatChoice | None,
    typer.Option(
        "--format",
        "-f",
        case_sensitive=False,
        help="Print as one of these (default: tables fitted to the terminal; Markdown when piped).",
    ),
]


RayAddressOption = Annotated[
    str | None,
    typer.Option("--ray-address", metavar="ADDR", help="Ray cluster to join (default: a local Ray)."),
]
ExecutorOption = Annotated[
    ExecutorChoice,
    typer.Option(
        "--executor",
        case_sensitive=False,
        help="Where the work runs: in local processes (-j N of them) or on Ray (the `dist` extra): the build's "
        "per-document stages, the benchmark's fits.",
    ),
]


class SourceChoice(StrEnum):
    AUTO = "auto"
    BUILD = "build"
    RELEASE = "release"
    BOTH = "both"


SourceOption = Annotated[
    SourceChoice,
    typer.Option(
        "--source",
        case_sensitive=False,
        envvar="UCDCR_SOURCE",
        help="Which datasets of the data dir: build (built from raw files), release (the authors' release, "
        "`ucdcr download --release`), both (releases named ID@release), auto (the build where there is one, else "
        "the release).",
    ),
]


def dataset_choice(dataset: str, source: SourceChoice, data_dir: Path | None) -> str:
    """The dataset argument of a one-dataset command (view, export) under --source: ``ID@release`` names the
    release; ``build`` requires a build (a path is taken as it is)."""
    from ucdcr.paths import resolve_data_dir
    from ucdcr.registry import known_ids, normalize_id
    from ucdcr.schema import MENTIONS_PARQUET
    from ucdcr.sources.discover import RELEASE_SUFFIX, strip_suffix

    plain, suffixed = strip_suffix(dataset)
    key = normalize_id(plain)
    if suffixed or key not in known_ids() or Path(dataset).is_dir():
        return dataset
    if source is SourceChoice.RELEASE:
        return plain + RELEASE_SUFFIX
    if source is SourceChoice.BUILD and not (resolve_data_dir(data_dir) / key / MENTIONS_PARQUET).is_file():
        raise UcdcrError(f"dataset {key!r} is not built in {resolve_data_dir(data_dir)} (run `ucdcr build {key}`)")
    return dataset


class ProtocolChoice(StrEnum):
    UCDCR = "ucdcr"
    STANDARD = "standard"


class LevelChoice(StrEnum):
    SUBTOPIC = "subtopic"
    TOPIC = "topic"


class TopicsChoice(StrEnum):
    GOLD = "gold"
    PREDICTED = "predicted"


class ExportLevelChoice(StrEnum):
    """The --level choices of `ucdcr export conll`: what one CoNLL document holds."""

    DOCUMENT = "document"
    SUBTOPIC = "subtopic"
    TOPIC = "topic"


class MentionsChoice(StrEnum):
    """The --mentions choices of `ucdcr export conll`."""

    ALL = "all"
    EVENT = "event"
    ENTITY = "entity"


ProtocolOption = Annotated[
    ProtocolChoice,
    typer.Option(
        "--protocol",
        case_sensitive=False,
        help="ucdcr: the paper's protocol (settings per subtopic/topic, non-singleton chains); standard: the "
        "published ECB+ protocol (every gold mention, singletons kept, clustering within topics, the split scored "
        "as one meta-document).",
    ),
]
LevelOption = Annotated[
    LevelChoice | None,
    typer.Option(
        "--level",
        case_sensitive=False,
        help="ucdcr protocol: the unit clustered and scored (default subtopic).",
    ),
]
TopicsOption = Annotated[
    TopicsChoice,
    typer.Option(
        "--topics",
        case_sensitive=False,
        help="standard protocol: cluster within gold topics or within document clusters predicted from the texts.",
    ),
]
DEFAULT_RESAMPLES = 1000
"""``ucdcr.scoring.bootstrap.RESAMPLES``, written out so that start-up does not import the scorer (a test checks)."""
MAX_RESAMPLES = 100_000
"""``ucdcr.scoring.bootstrap.MAX_RESAMPLES``, written out for start-up (a test checks)."""
ResamplesOption = Annotated[
    int,
    typer.Option(
        "--resamples",
        min=0,
        max=MAX_RESAMPLES,
        help="Bootstrap resamples for the 95% confidence intervals (over topics, subtopics or documents; fixed "
        "seed); 0 turns them off.",
    ),
]
SignificanceOption = Annotated[
    str,
    typer.Option(
        "--significance",
        help="The p-value of the paired test of two systems on the same units: randomization (default; paired "
        "randomisation, exact over every swap with at most 16 units) or bootstrap (paired bootstrap, Koehn 2004). "
        "The interval of the difference is the paired bootstrap's either way.",
    ),
]
SIGNIFICANCE_TESTS = ("bootstrap", "randomization")
"""``ucdcr.scoring.bootstrap.METHODS``, written out for start-up (a test checks)."""
DEFAULT_SIGNIFICANCE = "randomization"


class ReferencesChoice(StrEnum):
    """The --references choices (:data:`ucdcr.systems.framework.standings.REFERENCE_SOURCES`)."""

    SHIPPED = "shipped"
    LOCAL = "local"
    NONE = "none"


ReferencesOption = Annotated[
    ReferencesChoice,
    typer.Option(
        "--references",
        case_sensitive=False,
        help="The reference runs a system is placed beside (same data and setting only): shipped (the reference "
        "systems' runs shipped with ucdcr; nothing is trained), local (the runs `ucdcr benchmark` stored in "
        "--cache-dir, computed here), none.",
    ),
]
CacheDirOption = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir",
        metavar="DIR",
        help="Encodings, models and stored benchmark runs (default: $UCDCR_CACHE_DIR, else the user cache dir + "
        "/benchmark).",
    ),
]


def check_significance(test: str) -> None:
    if test not in SIGNIFICANCE_TESTS:
        raise typer.BadParameter(
            f"{test!r}: valid tests are {', '.join(SIGNIFICANCE_TESTS)}", param_hint="--significance"
        )


RemoveSingletonsOption = Annotated[
    bool,
    typer.Option(
        "--remove-singletons",
        help="standard protocol: remove one-mention chains from key and response before scoring (Cattan et al. 2021).",
    ),
]


def protocol_of(
    name: ProtocolChoice,
    level: LevelChoice | None = None,
    topics: TopicsChoice = TopicsChoice.GOLD,
    remove_singletons: bool = False,
) -> Protocol:
    """The protocol the options name; options of the other protocol are an error."""
    from ucdcr.analysis.protocol import Protocol

    if name is ProtocolChoice.STANDARD and level is not None:
        raise UcdcrError("--level is an option of the ucdcr protocol; the standard protocol clusters within topics")
    if name is ProtocolChoice.UCDCR and (topics is not TopicsChoice.GOLD or remove_singletons):
        raise UcdcrError("--topics and --remove-singletons are options of --protocol standard")
    chosen_level = (level or LevelChoice.SUBTOPIC).value
    return Protocol(name.value, chosen_level, topics.value, not remove_singletons)  # type: ignore[arg-type]


OutputOption = Annotated[
    Path | None,
    typer.Option("--output", "-o", metavar="FILE", callback=_writable_file, help="Write the output to this file."),
]


def output_folder_option(name: str, help: str) -> Any:
    """A typer option for a folder to write into (``--out``); refused up front if it cannot be written."""
    return typer.Option(name, metavar="DIR", callback=_writable_folder, help=help)


def output_file_option(name: str, help: str) -> Any:
    """A typer option for a file to write (``--out``); refused up front if it cannot be written."""
    return typer.Option(name, metavar="FILE", callback=_writable_file, help=help)


def input_folder_option(name: str, help: str) -> Any:
    """A typer option for a folder to read from (``--mirror``, ``--texts``): it must exist and be a folder."""
    return typer.Option(name, metavar="DIR", callback=_existing_folder, help=help)


def check_format(fmt: str | None) -> None:
    """Raise a UcdcrError for an unknown --format value (typer already refuses one given on the command line)."""
    if fmt is not None and fmt not in FORMATS:
        raise UcdcrError(f"unknown format {fmt!r}; valid formats: {', '.join(FORMATS)}")


def selected_datasets(
    data_dir: Path | None, datasets: str | None, source: SourceChoice = SourceChoice.AUTO
) -> dict[str, Path]:
    """Dataset folders chosen by --data-dir / --datasets / --source (every dataset folder found by default)."""
    from ucdcr.paths import resolve_data_dir
    from ucdcr.sources.discover import discover_datasets

    names = [name.strip() for name in datasets.split(",") if name.strip()] if datasets else None
    return discover_datasets(resolve_data_dir(data_dir), names, source.value)
