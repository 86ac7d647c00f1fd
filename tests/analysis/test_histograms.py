"""Chain PD/MTLD histograms (ucdcr.analysis.histograms): bins, labels, whole-dataset chains, the CSV layout."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ucdcr.analysis.histograms import (
    MTLD_EDGES,
    PD_EDGES,
    bin_labels,
    chain_histograms,
    histogram,
    histogram_rows,
)


def test_edges_are_the_authors_bins() -> None:
    # docs/analysis.md#histograms / summary/histogram_*.csv: MTLD edges 0, 3, ..., 90; PD edges 0, 1, ..., 30.
    assert MTLD_EDGES[:3] == (0.0, 3.0, 6.0) and MTLD_EDGES[-1] == 90.0
    assert len(MTLD_EDGES) == len(PD_EDGES) == 31 and PD_EDGES[-1] == 30.0
    labels = bin_labels(MTLD_EDGES)
    assert labels[0] == "[0.0..3.0)" and labels[-2] == "[87.0..90.0)" and labels[-1] == "[90.0.."


def test_histogram_counts_right_open_bins_with_overflow() -> None:
    edges = (0.0, 1.0, 2.0, 3.0)
    # 0 and 0.999 -> [0,1); 1.0 -> [1,2) (right-open); 2.5 -> [2,3); 3.0 and 40 -> overflow [3..
    assert histogram([0, 0.999, 1.0, 2.5, 3.0, 40], edges) == [2, 1, 1, 2]
    assert histogram([], edges) == [0, 0, 0, 0]
    # a value below the first edge is not dropped: it counts in the first bin
    assert histogram([-1.0], edges) == [1, 0, 0, 0]


def test_histogram_agrees_with_the_authors_digitize() -> None:
    # The authors (create_summary.py, plot_histogram_lexical_diversity) count np.digitize(values, bins) indices
    # 1..31 as bins "[b(i-1)..b(i))" and 31 as "[90.0..": index i is our bin i-1.
    values = np.random.default_rng(1).gamma(2, 5, size=500)
    digitized = np.digitize(values, MTLD_EDGES)
    assert histogram(values, MTLD_EDGES) == [int((digitized == i).sum()) for i in range(1, 32)]
    assert sum(histogram(values, MTLD_EDGES)) == 500


def _table(rows: list[tuple[str, str, list[str], str]]) -> pa.Table:
    chains, splits, tokens, heads = (list(column) for column in zip(*rows, strict=True))
    return pa.table(
        {
            "coref_chain": chains,
            "split": splits,
            "tokens_text": tokens,
            "mention_head": heads,
            "mention_head_lemma": heads,
        }
    )


def test_chain_histograms_count_each_chain_of_the_whole_dataset_once() -> None:
    table = _table(
        [
            ("A", "test", ["the", "fire"], "fire"),
            ("A", "test", ["the", "fire"], "fire"),
            ("B", "val", ["Tony", "Reagins", "said"], "Reagins"),
            ("C", "train", ["a", "blaze"], "blaze"),
            ("C", "test", ["the", "inferno"], "inferno"),
        ]
    )
    counts = chain_histograms(table)
    # Hand computation (docs/analysis.md#phrasing-diversity, docs/analysis.md#mtld-ucdcr-variant):
    # A: PD = (1/2)·1/2 = 0.25; MTLD: the, fire, the -> TTR 2/3 <= 0.72, factor 3, partial 1 -> mean 2 (both ways).
    # B: singleton -> PD 1; 3 distinct tokens -> MTLD 3, which falls in [3..6) (right-open bins).
    # C (one chain although it spans train and test): stopwords a/the dropped, heads differ -> PD (1+1)·2/2 = 2;
    #    4 distinct tokens -> MTLD 4.
    assert counts["PD"][:4] == [1, 1, 1, 0] and sum(counts["PD"]) == 3
    assert counts["MTLD"][:3] == [1, 2, 0] and sum(counts["MTLD"]) == 3


def test_histogram_rows_follow_the_authors_csv_layout() -> None:
    rows = histogram_rows({"x": [1, 2, 0], "y": [0, 0, 5]}, (0.0, 1.0, 2.0))
    assert rows == [
        {"": "[0.0..1.0)", "x": 1, "y": 0},
        {"": "[1.0..2.0)", "x": 2, "y": 0},
        {"": "[2.0..", "x": 0, "y": 5},
    ]


def test_diversity_command_prints_the_histograms_in_the_csv_layout(make_dataset) -> None:
    import csv
    import io

    from tests.fixtures.unified import mention
    from typer.testing import CliRunner

    from ucdcr.cli.app import app

    folder = make_dataset(
        {
            ("test", "entity"): [
                mention("A", ["the", "fire"], doc="d1"),
                mention("A", ["the", "fire"], doc="d2"),
                mention("B", ["Tony", "Reagins", "said"], head="Reagins", doc="d1"),
            ]
        },
        name="gvc",
    )
    result = CliRunner().invoke(app, ["diversity", "--data-dir", str(folder.parent), "--histograms", "--format", "csv"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))  # several tables: one CSV, the title in column "table"
    titles = list(dict.fromkeys(row["table"] for row in rows))
    assert titles[1:] == ["Chains per MTLD bin (paper Figure 5)", "Chains per PD bin (paper Figure 6)"]
    mtld = [[row[""], row["gvc"]] for row in rows if row["table"] == titles[1]]
    # the authors' columns (empty bin column, then the datasets) and 31 bins; A has MTLD 2 and B 3 (hand computation
    # in test_chain_histograms_count_each_chain_of_the_whole_dataset_once)
    assert len(mtld) == 31
    assert mtld[0] == ["[0.0..3.0)", "1"] and mtld[1] == ["[3.0..6.0)", "1"] and mtld[-1] == ["[90.0..", "0"]
