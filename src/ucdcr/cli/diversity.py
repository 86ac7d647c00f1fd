"""`ucdcr diversity`: paper Table 5 (AL, UL-a, UL-o, PD, MTLD) plus the standard MTLD.

With ``--histograms`` also the chain counts per PD and MTLD bin (paper Figures 5-6) in the layout of the authors'
``summary/histogram_{MLTD,phrasing_diversity}.csv``: one row per bin, one column per dataset.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ucdcr.analysis.chains import scopes
from ucdcr.analysis.diversity import (
    TABLE5_COLUMNS,
    chain_diversity,
    scope_diversity,
    table5_row,
)
from ucdcr.analysis.histograms import METRIC_EDGES, chain_histograms, histogram_rows
from ucdcr.cli.common import DataDirOption, DatasetsOption, console, friendly_errors
from ucdcr.cli.stats import FormatOption, OutputOption, check_format, selected_datasets
from ucdcr.io.load import load_mentions
from ucdcr.report.tables import ResultTable, print_tables

DIVERSITY_FIELDS = ("coref_chain", "split", "tokens_text", "mention_head", "mention_head_lemma")
_NOTES = [
    "Non-singleton chains; AL, UL-a, PD and MTLD over the whole dataset, UL-o on the test split (paper Table 5).",
    "MTLD is the uCDCR variant the paper reports; MTLD (standard) is McCarthy & Jarvis (2010), not in the paper.",
]


def build_tables(folders: dict[str, Path], per_split: bool = False, histograms: bool = False) -> list[ResultTable]:
    """Table 5 for the given dataset folders; with ``per_split`` also one row per split (non-singleton chains);
    with ``histograms`` also the MTLD and PD histogram tables."""
    table5 = ResultTable("Table 5: lexical ambiguity and diversity", ["Dataset", *TABLE5_COLUMNS], notes=_NOTES)
    splits = ResultTable(
        "Lexical ambiguity and diversity per split (non-singleton chains of the split)",
        ["Dataset", "Split", "AL", "UL-a", "UL-o", "PD", "MTLD", "MTLD (standard)", "Avg size"],
    )
    binned: dict[str, dict[str, list[int]]] = {metric: {} for metric in METRIC_EDGES}
    for name, folder in folders.items():
        mentions = load_mentions(folder, columns=DIVERSITY_FIELDS)
        chains = chain_diversity(mentions)
        for metric, counts in (chain_histograms(mentions) if histograms else {}).items():
            binned[metric][name] = counts
        table5.add({"Dataset": name, **table5_row(mentions, chains)})
        for scope in scopes(mentions)[1:] if per_split else ():
            values = scope_diversity(mentions, chains, scope)
            if values is None:
                continue
            splits.add(
                {
                    "Dataset": name,
                    "Split": scope,
                    "AL": values["lexical_ambiguity"],
                    "UL-a": values["unique_lemmas_avg"],
                    "UL-o": values["unique_lemmas_sum"],
                    "PD": values["phrasing_diversity_weighted"],
                    "MTLD": values["MLTD"],
                    "MTLD (standard)": values["MTLD_standard"],
                    "Avg size": values["average_size"],
                }
            )
    tables = [table5, splits] if per_split else [table5]
    return tables + [_histogram_table(metric, binned[metric]) for metric in METRIC_EDGES] if histograms else tables


def _histogram_table(metric: str, counts: dict[str, list[int]]) -> ResultTable:
    table = ResultTable(
        f"Chains per {metric} bin (paper Figure {5 if metric == 'MTLD' else 6})",
        ["", *counts],
        notes=["Chains of the whole dataset, singletons included; right-open bins, the last one is open-ended."],
    )
    for row in histogram_rows(counts, METRIC_EDGES[metric]):
        table.add(row)
    return table


def register(app: typer.Typer) -> None:
    @app.command("diversity", help="Lexical ambiguity and diversity: paper Table 5 plus the standard MTLD.")
    @friendly_errors
    def _cmd(
        data_dir: DataDirOption = None,
        datasets: DatasetsOption = None,
        fmt: FormatOption = None,
        per_split: Annotated[bool, typer.Option("--per-split", help="Also list the values of each split.")] = False,
        histograms: Annotated[
            bool, typer.Option("--histograms", help="Also the chain counts per PD and MTLD bin (Figures 5-6).")
        ] = False,
        output: OutputOption = None,
    ) -> None:
        check_format(fmt)
        print_tables(
            build_tables(selected_datasets(data_dir, datasets), per_split, histograms), fmt, console, output
        )
