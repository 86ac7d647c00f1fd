"""`ucdcr evaluate PREDICTIONS`: score a system's clusters with the uCDCR protocol (the baseline's protocol) or the
standard one (``--protocol standard``, :class:`ucdcr.analysis.protocol.Protocol`).

PREDICTIONS: JSON {mention_id: cluster}, JSON [{"mention_id": ..., "cluster": ...}], CSV with the columns
``mention_id`` and ``cluster``, or a CoNLL-2012 response matched to the gold mentions by document key, sentence
and tokens (formats and rules: :mod:`ucdcr.analysis.evaluate`). ``--split`` chooses the evaluated split (test by
default; val to tune a system). Notes on ignored predictions, unmatched response mentions and unmarked gold
mentions go to stderr (and into ``--json``). Scoring and tables: :func:`ucdcr.report.paper_tables.evaluation_results`,
``evaluation_tables`` and ``results_json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from ucdcr.cli.common import (
    DataDirOption,
    DatasetsOption,
    FormatOption,
    OutputOption,
    ProtocolChoice,
    ProtocolOption,
    RemoveSingletonsOption,
    SourceChoice,
    SourceOption,
    check_format,
    console,
    err_console,
    friendly_errors,
    protocol_of,
    selected_datasets,
)
from ucdcr.errors import UcdcrError
from ucdcr.records import SPLITS

HELP = (
    "Score predicted clusters with the uCDCR protocol (the baseline's: settings per subtopic and topic; MUC, B3, "
    "CEAFe, CoNLL), or with --protocol standard (the published ECB+ protocol: every gold mention scored, singletons "
    "kept (or removed: see below), the split as one meta-document; cluster ids are taken as given, so a cluster "
    "may span topics).\n\n"
    'PREDICTIONS is one of: a JSON object {"mention_id": cluster}; a JSON list of {"mention_id": ..., '
    '"cluster": ...}; a CSV with the columns mention_id and cluster; or a CoNLL-2012 response whose token lines '
    "start with document key, sentence and token number, as `ucdcr export conll` writes them (chain ids are global "
    "in the file).\n\n"
    "Cluster ids: strings or numbers. Numbers compare by value and an integral number equals its integer string: "
    '1, 1.0 and "1" are one cluster; "1.0" and "01" are other clusters. null, NaN, Infinity, true/false, lists, '
    'objects, empty cells and "NaN"/"NA"/"null"/"None" are errors, and so is a mention id given twice.\n\n'
    "Every evaluated mention of the split needs a prediction (JSON/CSV); predictions for other datasets or splits "
    "are ignored with a note. With a CoNLL response, gold mentions it does not mark count as singletons, and "
    "response mentions that match no gold mention are ignored; both are reported in a note."
)


def register(app: typer.Typer) -> None:
    @app.command("evaluate", help=HELP)
    @friendly_errors
    def _cmd(
        predictions: Annotated[Path, typer.Argument(help="Predictions file (JSON, CSV or CoNLL-2012).")],
        data_dir: DataDirOption = None,
        datasets: DatasetsOption = None,
        source: SourceOption = SourceChoice.AUTO,
        split: Annotated[
            str, typer.Option("--split", help="The split to evaluate: test, or val to tune a system (or train).")
        ] = "test",
        protocol: ProtocolOption = ProtocolChoice.UCDCR,
        remove_singletons: RemoveSingletonsOption = False,
        fmt: FormatOption = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print every mean and setting as JSON.")] = False,
        per_setting: Annotated[bool, typer.Option("--per-setting", help="Also list every setting's scores.")] = False,
        output: OutputOption = None,
    ) -> None:
        from ucdcr.analysis.evaluate import read_predictions
        from ucdcr.report.paper_tables import evaluation_results, evaluation_tables, results_json
        from ucdcr.report.tables import print_tables

        check_format(fmt)
        if split not in SPLITS:
            raise UcdcrError(f"unknown split {split!r}; valid splits: {', '.join(SPLITS)}")
        chosen = protocol_of(protocol, remove_singletons=remove_singletons)
        predicted = read_predictions(predictions)
        evaluation = evaluation_results(predicted, selected_datasets(data_dir, datasets, source), split, chosen)
        for note in evaluation.notes:
            err_console.print(f"[yellow]note:[/] {escape(note)}", highlight=False, soft_wrap=True)
        if as_json:
            summary = {"split": split, "protocol": chosen.label, **results_json(evaluation.results)}
            _write_json({**summary, "notes": evaluation.notes}, output)
            return
        title = f"evaluation of {predictions.name}, {chosen.label} protocol" + (
            "" if split == "test" else f" ({split} split)"
        )
        print_tables(evaluation_tables(evaluation.results, title, per_setting), fmt, console, output)


def _write_json(data: dict[str, Any], output: Path | None) -> None:
    """The JSON on stdout, or atomically into ``output``."""
    text = json.dumps(data, indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    from ucdcr.io.atomic import write_text

    write_text(output, text)
