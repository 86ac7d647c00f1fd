"""The demo: the main job of ucdcr, offline, on a small sample of ECB+ shipped inside the package.

The sample (``ucdcr/data/sample/``; what it holds, its source and licence are in its README.md) is a few ECB+
topics, one per split, in their original format and laid out like a raw dir: ``ECBplus/ECB+_LREC2014/ECB+.zip``
(the CAT XML files), the validated-sentence CSV, the uCDCR split file and subtopic names subsetted to those topics,
and the CC BY 3.0 licence files. :func:`run_demo` does what a user does with a full corpus, with the same code:

1. build it with :func:`ucdcr.pipeline.build.build_dataset` (the ECB+ reader, the whole pipeline) into
   ``<out>/data/ecbplus_sample`` -- named so that nobody takes it for the full ECB+;
2. compute the statistics, diversity and baseline tables and write the HTML report into ``<out>/report`` with
   :func:`ucdcr.report.build_report.build_report` (whose tables are those ``ucdcr stats``, ``ucdcr diversity``
   and ``ucdcr baseline`` print by default).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ucdcr.errors import UcdcrError

if TYPE_CHECKING:
    from ucdcr.pipeline.build import BuildReport
    from ucdcr.report.model import Report
    from ucdcr.report.tables import ResultTable

SAMPLE_DATASET = "ecbplus"  # the reader that builds the sample
SAMPLE_NAME = "ecbplus_sample"  # the folder the sample is built into
DEFAULT_OUT = Path("ucdcr-demo")


def sample_dir() -> Path:
    """The raw dir of the embedded ECB+ sample (it holds ``ECBplus/``, laid out like ``ucdcr download`` lays it out):
    ``ucdcr build ecbplus --raw-dir <this>`` builds it too."""
    return Path(__file__).resolve().parent / "data" / "sample"


@dataclass
class DemoResult:
    """What the demo built and wrote (absolute paths)."""

    out_dir: Path
    data_dir: Path
    dataset_dir: Path
    build: BuildReport
    report: Report
    example_doc_key: str  # a test document with mentions, for `ucdcr view`

    @property
    def tables(self) -> list[ResultTable]:
        """The statistics, diversity and baseline tables, in the report's order."""
        return [table for section in self.report.sections for table in section.tables]

    @property
    def report_dir(self) -> Path:
        return self.report.out_dir


def run_demo(
    out_dir: str | Path = DEFAULT_OUT,
    progress: bool = False,
    say: Callable[[str], None] | None = None,
    embed: bool | None = None,
) -> DemoResult:
    """Build the embedded sample into ``<out_dir>/data/ecbplus_sample`` and write its report to ``<out_dir>/report``.

    progress: show the build's progress bar; say: receives the report's progress messages;
    embed: draw the mention map with the ``embed`` extra (None = if installed, False = never).
    """
    from ucdcr.pipeline.build import build_dataset
    from ucdcr.report.build_report import build_report

    out = _prepare(Path(out_dir))
    data_dir = out / "data"
    build = build_dataset(SAMPLE_DATASET, sample_dir(), data_dir, progress=progress, output_name=SAMPLE_NAME)
    dataset_dir = data_dir / SAMPLE_NAME
    report = build_report({SAMPLE_NAME: dataset_dir}, out / "report", say, embed)
    return DemoResult(out, data_dir, dataset_dir, build, report, _first_document(dataset_dir))


def _first_document(dataset_dir: Path) -> str:
    from ucdcr.io.load import load_mentions

    keys = load_mentions(dataset_dir, splits=("test",), columns=["conll_doc_key"])["conll_doc_key"]
    return str(keys[0])


def _prepare(out: Path) -> Path:
    """The absolute output folder, created; an error before any work if it cannot be."""
    out = out.resolve()
    if out.exists() and not out.is_dir():
        raise UcdcrError(f"demo output {out} is a file, not a folder; choose another --out")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UcdcrError(f"cannot create the demo output folder {out}: {exc.strerror or exc}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise UcdcrError(f"demo output folder {out} is not writable; choose another --out")
    return out
