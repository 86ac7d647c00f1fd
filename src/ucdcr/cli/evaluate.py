"""`ucdcr evaluate PREDICTIONS`: score a system's clusters with the uCDCR protocol (the baseline's protocol) or the
standard one (``--protocol standard``, :class:`ucdcr.analysis.protocol.Protocol`).

PREDICTIONS: JSON {mention_id: cluster}, JSON [{"mention_id": ..., "cluster": ...}], CSV with the columns
``mention_id`` and ``cluster``, or a CoNLL-2012 response matched to the gold mentions by document key, sentence
and tokens (formats and rules: :mod:`ucdcr.analysis.evaluate`). ``--split`` chooses the evaluated split (test by
default; val to tune a system). ``--mentions`` chooses which mentions are scored: ``gold`` (the default, the
behaviour from before the option, unchanged) or ``predicted`` (a CoNLL response of an end-to-end system scored as
v8.01 scores it, with mention detection in a table of its own and in the ``--json`` scores as ``R_MD``, ``P_MD``
and ``F1_MD``; rules in :mod:`ucdcr.analysis.evaluate`). Notes on ignored predictions, unmatched response mentions
and unmarked gold mentions go to stderr (and into ``--json``). The system is placed beside the reference runs of
the same signature (``--references shipped|local|none``): a leaderboard with ``Δ best`` and p, and with ``--each``
its comparison with each reference system. Scoring and placing:
:func:`ucdcr.systems.framework.placement.place_predictions`; tables: :func:`ucdcr.report.paper_tables.
placement_tables` and ``results_json``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from ucdcr.cli.common import (
    DEFAULT_RESAMPLES,
    DEFAULT_SIGNIFICANCE,
    CacheDirOption,
    DataDirOption,
    DatasetsOption,
    FormatOption,
    OutputOption,
    ProtocolChoice,
    ProtocolOption,
    ReferencesChoice,
    ReferencesOption,
    RemoveSingletonsOption,
    ResamplesOption,
    SignificanceOption,
    SourceChoice,
    SourceOption,
    TopicsChoice,
    check_format,
    check_significance,
    console,
    err_console,
    friendly_errors,
    protocol_of,
    selected_datasets,
)
from ucdcr.errors import UcdcrError
from ucdcr.records import SPLITS

if TYPE_CHECKING:
    from ucdcr.analysis.evaluate import Evaluation
    from ucdcr.scoring.bootstrap import Method
    from ucdcr.systems.framework.placement import PredictionsPlacement

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
    "are ignored with a note. With a CoNLL response and --mentions gold (the default), gold mentions it does not "
    "mark count as singletons, and response mentions that match no gold mention are ignored; both are reported in "
    "a note.\n\n"
    "--mentions predicted (a CoNLL response of an end-to-end system, whose spans are its own) scores the response "
    "as the CoNLL-2012 scorer v8.01 does: twinless response mentions (matching no gold mention) stay in their "
    "chains and count against precision, unmarked gold mentions are missing from the response, and mention "
    "detection recall, precision and F1 (exact spans) are reported beside the coreference metrics. A twinless "
    "mention has no type: it is scored in the joint settings of its document's subtopic/topic (ucdcr) or in the "
    "joint meta-document (standard), not in the per-type ones."
)


class MentionSourceChoice(StrEnum):
    """The --mentions choices of `ucdcr evaluate` (:data:`ucdcr.analysis.evaluate.MENTION_SOURCES`)."""

    GOLD = "gold"
    PREDICTED = "predicted"


MentionSourceOption = Annotated[
    MentionSourceChoice,
    typer.Option(
        "--mentions",
        case_sensitive=False,
        help="gold (default; the behaviour from before this option, unchanged): the gold mentions are scored, a "
        "CoNLL response only clusters them. predicted: a CoNLL response's own mentions are scored as v8.01 "
        "scores them (twinless mentions count against precision, unmarked gold mentions are missing), with "
        "mention detection R/P/F1.",
    ),
]


def register(app: typer.Typer) -> None:
    @app.command("evaluate", help=HELP)
    @friendly_errors
    def _cmd(
        predictions: Annotated[
            list[str],
            typer.Argument(
                metavar="PREDICTIONS...",
                help="Predictions file (JSON, CSV or CoNLL-2012); CoNLL responses may be given per kind as "
                "event:FILE entity:FILE (an end-to-end system's event and entity files).",
            ),
        ],
        data_dir: DataDirOption = None,
        datasets: DatasetsOption = None,
        source: SourceOption = SourceChoice.AUTO,
        split: Annotated[
            str, typer.Option("--split", help="The split to evaluate: test, or val to tune a system (or train).")
        ] = "test",
        protocol: ProtocolOption = ProtocolChoice.UCDCR,
        topics: Annotated[
            TopicsChoice,
            typer.Option(
                "--topics",
                case_sensitive=False,
                help="standard protocol: what the system clustered within, gold topics or document clusters it "
                "predicted. It changes no score (cluster ids are taken as given); it names the setting in the "
                "signature and chooses the reference runs of that setting.",
            ),
        ] = TopicsChoice.GOLD,
        remove_singletons: RemoveSingletonsOption = False,
        mentions: MentionSourceOption = MentionSourceChoice.GOLD,
        fmt: FormatOption = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print every mean and setting as JSON.")] = False,
        per_setting: Annotated[bool, typer.Option("--per-setting", help="Also list every setting's scores.")] = False,
        output: OutputOption = None,
        against: Annotated[
            Path | None,
            typer.Option(
                "--against",
                metavar="OTHER",
                help="Another system's predictions on the same mentions: adds the paired comparison (the difference "
                "of each CoNLL F1 with its interval and p-value).",
            ),
        ] = None,
        resamples: ResamplesOption = DEFAULT_RESAMPLES,
        significance: SignificanceOption = DEFAULT_SIGNIFICANCE,
        references: ReferencesOption = ReferencesChoice.SHIPPED,
        cache_dir: CacheDirOption = None,
        each: Annotated[
            bool,
            typer.Option(
                "--each", help="Also compare the predictions with each reference system (paired), not only the best."
            ),
        ] = False,
    ) -> None:
        from ucdcr.analysis.evaluate import covered_datasets, read_prediction_files, read_predictions
        from ucdcr.report.paper_tables import placement_tables
        from ucdcr.report.tables import print_tables
        from ucdcr.systems.framework.placement import place_predictions

        check_format(fmt)
        check_significance(significance)
        if split not in SPLITS:
            raise UcdcrError(f"unknown split {split!r}; valid splits: {', '.join(SPLITS)}")
        chosen = protocol_of(protocol, topics=topics, remove_singletons=remove_singletons)
        predicted = read_prediction_files(predictions, mentions.value)
        other = read_predictions(against, mentions.value) if against is not None else None  # both read before work
        name = predicted.path.name
        folders = selected_datasets(data_dir, datasets, source)
        if datasets is None:  # the datasets the predictions cover, not every built one
            folders, covered = covered_datasets(predicted, folders)
            if covered:
                err_console.print(f"[yellow]note:[/] {escape(covered)}", highlight=False, soft_wrap=True)
        placed = place_predictions(
            predicted,
            folders,
            split,
            chosen,
            references.value,
            cache_dir,
            resamples,
            significance,  # type: ignore[arg-type]
            other,
            each,
        )
        evaluation = placed.evaluation
        for note in [*evaluation.notes, *placed.placement.notes]:
            err_console.print(f"[yellow]note:[/] {escape(note)}", highlight=False, soft_wrap=True)
        names = None
        if against is not None and placed.against is not None:
            for note in placed.against.notes:
                err_console.print(f"[yellow]note ({against.name}):[/] {escape(note)}", highlight=False, soft_wrap=True)
            names = (name, against.name) if name != against.name else (str(predicted.path), str(against))
        title = f"evaluation of {name}, {chosen.label} protocol" + ("" if split == "test" else f" ({split} split)")
        if evaluation.mentions == "predicted":
            title += ", predicted mentions"
        if as_json:
            _write_json(_json(placed, names, resamples, significance, split, chosen.label), output)  # type: ignore[arg-type]
            return
        tables = placement_tables(placed, title, per_setting, resamples, significance, names)  # type: ignore[arg-type]
        print_tables(tables, fmt, console, output)


def _json(
    placed: PredictionsPlacement,
    names: tuple[str, str] | None,
    resamples: int,
    method: Method,
    split: str,
    protocol: str,
) -> dict[str, Any]:
    """``--json``: the scores of every mean and setting, the signature, the comparison with another file, the
    leaderboard beside the references and the comparisons with each reference system, and the notes."""
    from ucdcr.report.benchmark_tables import each_table, standing_table
    from ucdcr.report.paper_tables import comparison_table, results_json
    from ucdcr.report.tables import to_json_data

    evaluation, placement = placed.evaluation, placed.placement
    data: dict[str, Any] = {
        "split": split,
        "protocol": protocol,
        "mentions": evaluation.mentions,
        "signature": str(placed.signature),
    }
    data.update(_with_mention_detection(results_json(evaluation.results, resamples), evaluation))
    if names is not None and placed.compared:
        data["comparison"] = [to_json_data(comparison_table(placed.compared, names, resamples, method))]
    if placement.standing is not None:
        data["leaderboard"] = to_json_data(standing_table(placement.standing))
        data["each"] = [to_json_data(each_table(s, found, placement.standing)) for s, found in placement.each.items()]
    data["notes"] = evaluation.notes
    data["placement_notes"] = placement.notes
    return data


def _with_mention_detection(data: dict[str, Any], evaluation: Evaluation) -> dict[str, Any]:
    """``results_json`` with mention detection added to the scores of every mean (the settings' scores have it)."""
    found = {(m.dataset, m.level, m.type): m.scores for m in evaluation.mention_detection}
    if not found:
        return data

    def add(entries: Sequence[dict[str, Any]]) -> None:
        for entry in entries:
            key = (entry["dataset"], entry["level"], "" if entry["type"] == "joint" else entry["type"])
            entry["scores"] = {**entry["scores"], **found.get(key, {})}  # a new dict: scores may be shared

    for dataset in data["datasets"]:
        add(dataset["means"])
    add(data["ucdcr"])
    return data


def _write_json(data: dict[str, Any], output: Path | None) -> None:
    """The JSON on stdout, or atomically into ``output``."""
    text = json.dumps(data, indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    from ucdcr.io.atomic import write_text

    write_text(output, text)
