"""Conformance with the CoNLL-2012 reference scorer v8.01: every printed digit.

Expected blocks in ``cases/expected_v801.json`` were printed by ``perl scorer.pl <metric> KEY RESPONSE none`` of
github.com/conll/reference-coreference-scorers commit f49f3f8 (v8.01), one process per metric, on the official test
files (``cases/official``, copied from its test/DataFiles) and on the generated cases (``cases/generated``, written by
``cases/make_cases.py``). ``many_repeats`` was printed by the same scorer with its "> 10 repeats" exit removed.
The official expected R/P/F1 values are transcribed from its test/CorefMetricTestConfig.pm.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ucdcr.scoring.scores import score_files
from ucdcr.scoring.v801_text import metric_block

CASES = Path(__file__).resolve().parent / "cases"
EXPECTED = json.loads((CASES / "expected_v801.json").read_text())
CASE_NAMES = sorted(name for name in EXPECTED if not name.startswith("_"))
GENERATED = [name for name in CASE_NAMES if not name.startswith("official/")]


def case_files(name: str) -> tuple[Path, Path]:
    if name.startswith("official/"):
        response = CASES / "official" / (name.split("/", 1)[1] + ".response")
        return CASES / "official" / (response.name.rsplit("-", 1)[0] + ".key"), response
    return CASES / "generated" / f"{name}.key", CASES / "generated" / f"{name}.response"


def test_corpus_covers_the_required_cases() -> None:
    # 36 official response files (TC-A-1 ... TC-N-6) and at least 20 generated pairs
    assert len(CASE_NAMES) - len(GENERATED) == 36
    assert len(GENERATED) >= 20


@pytest.mark.parametrize("name", CASE_NAMES)
def test_printed_blocks_equal_v801(name: str) -> None:
    key, response = case_files(name)
    scores = score_files(key, response)
    for metric, block in EXPECTED[name].items():
        assert metric_block(metric, scores, header=False) == block, (name, metric)


def test_many_repeats_warns_instead_of_aborting() -> None:
    # 12 repeated response mentions (see make_cases.many_repeats); v8.01 exits above 10
    scores = score_files(*case_files("many_repeats"))
    assert scores.repeated_response_mentions == 12
    assert any("would refuse" in note for note in scores.warnings)


# (id, key file, response file, {metric: (recall, precision, F1)}) from test/CorefMetricTestConfig.pm
OFFICIAL = [
    (
        "A1",
        "TC-A.key",
        "TC-A-1.response",
        {"muc": (1, 1, 1), "bcub": (6 / 6, 6 / 6, 1), "ceafm": (1, 1, 1), "ceafe": (1, 1, 1), "blanc": (1, 1, 1)},
    ),
    (
        "A2",
        "TC-A.key",
        "TC-A-2.response",
        {
            "muc": (1 / 3, 1 / 1, 0.5),
            "bcub": ((7 / 3) / 6, 3 / 3, 14 / 25),
            "ceafm": (0.5, 1, 0.66667),
            "ceafe": (0.6, 0.9, 0.72),
            "blanc": (0.21591, 1, 0.35385),
        },
    ),
    (
        "A3",
        "TC-A.key",
        "TC-A-3.response",
        {
            "muc": (3 / 3, 3 / 5, 0.75),
            "bcub": (6 / 6, (4 + 7 / 12) / 9, 110 / 163),
            "ceafm": (1, 0.66667, 0.8),
            "ceafe": (0.88571, 0.66429, 0.75918),
            "blanc": (1, 0.42593, 0.59717),
        },
    ),
    (
        "A4",
        "TC-A.key",
        "TC-A-4.response",
        {
            "muc": (1 / 3, 1 / 3, 1 / 3),
            "bcub": ((3 + 1 / 3) / 6, (1 + 4 / 3 + 1 / 2) / 7, 2 * (5 / 9) * (17 / 42) / ((5 / 9) + (17 / 42))),
            "ceafm": (0.66667, 0.57143, 0.61538),
            "ceafe": (0.73333, 0.55, 0.62857),
            "blanc": (0.35227, 0.27206, 0.30357),
        },
    ),
    (
        "A5",
        "TC-A.key",
        "TC-A-5.response",
        {
            "muc": (1 / 3, 1 / 4, 2 / 7),
            "bcub": ((3 + 1 / 3) / 6, 2.5 / 8, 2 * (5 / 9) * (5 / 16) / ((5 / 9) + (5 / 16))),
            "ceafm": (0.66667, 0.5, 0.57143),
            "ceafe": (0.68889, 0.51667, 0.59048),
            "blanc": (0.35227, 0.19048, 0.24716),
        },
    ),
    (
        "A6",
        "TC-A.key",
        "TC-A-6.response",
        {
            "muc": (1 / 3, 1 / 4, 2 / 7),
            "bcub": ((10 / 3) / 6, (1 + 4 / 3 + 1 / 2) / 8, 2 * (5 / 9) * (17 / 48) / ((5 / 9) + (17 / 48))),
            "ceafm": (0.66667, 0.5, 0.57143),
            "ceafe": (0.73333, 0.55, 0.62857),
            "blanc": (0.35227, 0.20870, 0.25817),
        },
    ),
    (
        "A7",
        "TC-A.key",
        "TC-A-7.response",
        {
            "muc": (1 / 3, 1 / 3, 1 / 3),
            "bcub": ((10 / 3) / 6, (1 + 4 / 3 + 1 / 2) / 7, 2 * (5 / 9) * (17 / 42) / ((5 / 9) + (17 / 42))),
            "ceafm": (0.66667, 0.57143, 0.61538),
            "ceafe": (0.73333, 0.55, 0.62857),
            "blanc": (0.35227, 0.27206, 0.30357),
        },
    ),
    (
        "A8",
        "TC-A.key",
        "TC-A-8.response",
        {
            "muc": (1 / 3, 1 / 3, 1 / 3),
            "bcub": ((10 / 3) / 6, (1 + 4 / 3 + 1 / 2) / 7, 2 * (5 / 9) * (17 / 42) / ((5 / 9) + (17 / 42))),
            "ceafm": (0.66667, 0.57143, 0.61538),
            "ceafe": (0.73333, 0.55, 0.62857),
            "blanc": (0.35227, 0.27206, 0.30357),
        },
    ),
    (
        "A9",
        "TC-A.key",
        "TC-A-9.response",
        {
            "muc": (1 / 3, 1 / 3, 1 / 3),
            "bcub": ((10 / 3) / 6, (1 + 4 / 3 + 1 / 2) / 7, 2 * (5 / 9) * (17 / 42) / ((5 / 9) + (17 / 42))),
            "ceafm": (0.66667, 0.57143, 0.61538),
            "ceafe": (0.73333, 0.55, 0.62857),
            "blanc": (0.35227, 0.27206, 0.30357),
        },
    ),
    (
        "A10",
        "TC-A.key",
        "TC-A-10.response",
        {"muc": (0, 0, 0), "bcub": (3 / 6, 6 / 6, 2 / 3), "blanc": (0.5, 0.36667, 0.42308)},
    ),
    (
        "A11",
        "TC-A.key",
        "TC-A-11.response",
        {
            "muc": (3 / 3, 3 / 5, 6 / 8),
            "bcub": (6 / 6, (1 / 6 + 2 * 2 / 6 + 3 * 3 / 6) / 6, 14 / 25),
            "blanc": (0.5, 0.13333, 0.21053),
        },
    ),
    (
        "A12",
        "TC-A.key",
        "TC-A-12.response",
        {
            "muc": (0, 0, 0),
            "bcub": ((1 + 1 / 2 + 2 / 3) / 6, 4 / 7, 2 * (13 / 36) * (4 / 7) / ((13 / 36) + (4 / 7))),
            "blanc": (0.22727, 0.11905, 0.15625),
        },
    ),
    (
        "A13",
        "TC-A.key",
        "TC-A-13.response",
        {
            "muc": (1 / 3, 1 / 6, 2 / 9),
            "bcub": (
                (1 + 1 / 2 + 2 * 2 / 3) / 6,
                (1 / 7 + 1 / 7 + 2 * 2 / 7) / 7,
                2 * (17 / 36) * (6 / 49) / ((17 / 36) + (6 / 49)),
            ),
            "blanc": (0.125, 0.02381, 0.04),
        },
    ),
    (
        "B1",
        "TC-B.key",
        "TC-B-1.response",
        {"blanc": (1 / 2 * (1 / 4 + 1 / 3), 1 / 2 * (1 / 4 + 1 / 3), 1 / 2 * (1 / 4 + 1 / 3))},
    ),
    (
        "C1",
        "TC-C.key",
        "TC-C-1.response",
        {"blanc": (1 / 2 * (2 / 5 + 10 / 16), 1 / 2 * (2 / 5 + 10 / 16), 1 / 2 * (2 / 5 + 10 / 16))},
    ),
    (
        "D1",
        "TC-D.key",
        "TC-D-1.response",
        {
            "muc": (9 / 9, 9 / 10, 2 * (9 / 9) * (9 / 10) / (9 / 9 + 9 / 10)),
            "bcub": (12 / 12, 16 / 21, 2 * (12 / 12) * (16 / 21) / (12 / 12 + 16 / 21)),
        },
    ),
    (
        "E1",
        "TC-E.key",
        "TC-E-1.response",
        {
            "muc": (9 / 9, 9 / 10, 2 * (9 / 9) * (9 / 10) / (9 / 9 + 9 / 10)),
            "bcub": (1, 7 / 12, 2 * 1 * (7 / 12) / (1 + 7 / 12)),
        },
    ),
    ("F1", "TC-F.key", "TC-F-1.response", {"muc": (2 / 3, 2 / 2, 2 * (2 / 3) * (2 / 2) / (2 / 3 + 2 / 2))}),
    ("G1", "TC-G.key", "TC-G-1.response", {"muc": (2 / 2, 2 / 3, 2 * (2 / 2) * (2 / 3) / (2 / 2 + 2 / 3))}),
    ("H1", "TC-H.key", "TC-H-1.response", {"muc": (1, 1, 1)}),
    ("I1", "TC-I.key", "TC-I-1.response", {"muc": (2 / 3, 2 / 2, 2 * (2 / 3) * (2 / 2) / (2 / 3 + 2 / 2))}),
    ("J1", "TC-J.key", "TC-J-1.response", {"muc": (1 / 2, 1 / 1, 2 * (1 / 2) * (1 / 1) / (1 / 2 + 1 / 1))}),
    ("K1", "TC-K.key", "TC-K-1.response", {"muc": (3 / 6, 3 / 6, 3 / 6)}),
    ("L1", "TC-L.key", "TC-L-1.response", {"muc": (2 / 5, 2 / 4, 2 * (2 / 5) * (2 / 4) / (2 / 5 + 2 / 4))}),
    (
        "M1",
        "TC-M.key",
        "TC-M-1.response",
        {"muc": (1, 1, 1), "bcub": (1, 1, 1), "ceafm": (1, 1, 1), "ceafe": (1, 1, 1), "blanc": (1, 1, 1)},
    ),
    ("M2", "TC-M.key", "TC-M-2.response", {"muc": (0, 0, 0), "blanc": (0, 0, 0)}),
    ("M3", "TC-M.key", "TC-M-3.response", {"blanc": (0.26667, 1, 0.42105)}),
    ("M4", "TC-M.key", "TC-M-4.response", {"blanc": (0.2, 0.2, 0.2)}),
    ("M5", "TC-M.key", "TC-M-5.response", {"muc": (0, 0, 0), "blanc": (0, 0, 0)}),
    ("M6", "TC-M.key", "TC-M-6.response", {"blanc": (0.06667, 0.25, 0.10526)}),
    ("N1", "TC-N.key", "TC-N-1.response", {"muc": (0, 0, 0), "blanc": (1, 1, 1)}),
    ("N2", "TC-N.key", "TC-N-2.response", {"muc": (0, 0, 0), "blanc": (0, 0, 0)}),
    ("N3", "TC-N.key", "TC-N-3.response", {"blanc": (0.73333, 1, 0.84615)}),
    ("N4", "TC-N.key", "TC-N-4.response", {"muc": (0, 0, 0), "blanc": (0.2, 0.2, 0.2)}),
    ("N5", "TC-N.key", "TC-N-5.response", {"blanc": (0, 0, 0)}),
    ("N6", "TC-N.key", "TC-N-6.response", {"blanc": (0.13333, 0.18182, 0.15385)}),
]


@pytest.mark.parametrize("case_id, key, response, expected", OFFICIAL, ids=[case[0] for case in OFFICIAL])
def test_official_expected_values(case_id: str, key: str, response: str, expected: dict) -> None:
    scores = score_files(CASES / "official" / key, CASES / "official" / response)
    for metric, values in expected.items():
        actual = (scores[metric].recall, scores[metric].precision, scores[metric].f1)
        # test.pl's rule: the summed absolute difference of (R, P, F1) is below 1e-4
        assert sum(abs(e - a) for e, a in zip(values, actual, strict=True)) < 1e-4, (case_id, metric, actual)


def test_official_check_count() -> None:
    # test.pl runs 91 metric checks over 36 cases
    assert len(OFFICIAL) == 36
    assert sum(len(expected) for *_, expected in OFFICIAL) == 91
