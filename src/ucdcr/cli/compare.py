"""`ucdcr compare DATASET`: our build of a dataset against the authors' release of it (both in the data dir, or
given by --build / --release), as three tables: mentions and chain links matched (recall of the release's,
precision of ours), agreement on the matched mentions, and the differences by reason
(:func:`ucdcr.analysis.compare.agreement`). Printed like the other table commands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ucdcr.cli.common import (
    DataDirOption,
    DatasetArgument,
    FormatOption,
    OutputOption,
    check_format,
    console,
    friendly_errors,
    input_folder_option,
    step_lines,
)
from ucdcr.errors import UcdcrError
from ucdcr.report.tables import ResultTable


def _percent(part: int, whole: int) -> float | None:
    return 100.0 * part / whole if whole else None


def compare_tables(figures: dict[str, Any], name: str) -> list[ResultTable]:
    """The tables of ``ucdcr compare`` from :func:`~ucdcr.analysis.compare.agreement`'s figures."""
    from ucdcr.analysis.compare import REASONS

    matched = ResultTable(
        f"{name}: our build against the authors' release",
        ["measure", "release", "build", "matched", "recall %", "precision %"],
        notes=[
            "Recall: of the release's mentions or links, found in our build; precision: of ours, found in the "
            "release. Chain links are the pairs of mentions in one chain, among the mentions matched by text."
        ],
    )
    for label, theirs, ours, both in (
        (
            "mentions by (document, sentence, text)",
            figures["release_mentions"],
            figures["build_mentions"],
            figures["matched_by_text"],
        ),
        (
            "mentions by span (document, sentence, tokens)",
            figures["release_spans"],
            figures["build_spans"],
            figures["matched_by_span"],
        ),
        ("chain links", figures["links"]["release"], figures["links"]["build"], figures["links"]["both"]),
    ):
        matched.add(
            {
                "measure": label,
                "release": theirs,
                "build": ours,
                "matched": both,
                "recall %": _percent(both, theirs),
                "precision %": _percent(both, ours),
            }
        )
    pairs = figures["matched_by_text"]
    same = figures["same"]
    agreeing = ResultTable(
        f"{name}: agreement on the {pairs} mentions matched by text", ["field", "agreeing", "of", "%"]
    )
    for label, key in (
        ("span (token numbers)", "span"),
        ("head token", "head_token"),
        ("head lemma", "head_lemma"),
        ("head POS", "head_pos"),
        ("NER", "ner"),
        ("mention type", "type"),
        ("split", "split"),
        ("context text (tokens joined)", "context_text"),
        ("context tokens", "context"),
    ):
        agreeing.add(
            {"field": label, "agreeing": same.get(key, 0), "of": pairs, "%": _percent(same.get(key, 0), pairs)}
        )
    agreeing.add({"field": "chains, MUC F1", "%": figures["muc_f1"]})
    agreeing.add({"field": "chains, B3 F1", "%": figures["bcub_f1"]})
    reasons = ResultTable(f"{name}: differences by reason", ["reason", "release", "build", "why"])
    for key, why in REASONS.items():
        theirs, ours = figures["reasons"].get(key, 0), figures["build_reasons"].get(key, 0)
        if theirs or ours:
            reasons.add({"reason": key, "release": theirs, "build": ours, "why": why})
    return [matched, agreeing, reasons]


def register(app: typer.Typer) -> None:
    @app.command("compare", help="Compare our build of a dataset with the authors' release of it.")
    @friendly_errors
    def _cmd(
        dataset: DatasetArgument,
        data_dir: DataDirOption = None,
        build: Annotated[
            Path | None, input_folder_option("--build", "The built dataset folder (default: <data-dir>/<id>).")
        ] = None,
        release: Annotated[
            Path | None,
            input_folder_option("--release", "The released dataset folder (default: <data-dir>/release/<id>)."),
        ] = None,
        fmt: FormatOption = None,
        output: OutputOption = None,
    ) -> None:
        from ucdcr.analysis.compare import agreement
        from ucdcr.paths import resolve_data_dir
        from ucdcr.registry import get
        from ucdcr.report.tables import print_tables
        from ucdcr.schema import BUILD_REPORT
        from ucdcr.sources.discover import is_dataset_folder, release_path

        check_format(fmt)
        spec = get(dataset)
        root = resolve_data_dir(data_dir)
        ours = build or root / spec.id
        theirs = release or release_path(root, spec.id)
        if build is None and not (ours / BUILD_REPORT).is_file():
            raise UcdcrError(f"{spec.id} is not built in {root} (run `ucdcr build {spec.id}`, or give --build DIR)")
        if release is None and not is_dataset_folder(theirs):
            raise UcdcrError(
                f"the release of {spec.id} is not in {root} (run `ucdcr download --release {spec.id}`, or give "
                "--release DIR)"
            )
        for folder in (ours, theirs):
            if not is_dataset_folder(folder):
                raise UcdcrError(f"{folder} is not a dataset folder (no all_mentions.parquet or */*_mentions.json)")
        say = step_lines()
        figures = agreement(ours, theirs, progress=say)
        say("done")
        print_tables(compare_tables(figures, spec.id), fmt, console, output)
