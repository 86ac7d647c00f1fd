"""Write the generated conformance cases and record the reference scorer's printed figures for them.

Not a test. Usage (from the repo root, with a checkout of github.com/conll/reference-coreference-scorers):

    python tests/scoring/cases/make_cases.py /path/to/reference-coreference-scorers COMMIT

Each case is ``generated/<name>.key`` + ``generated/<name>.response``; ``expected_v801.json`` maps case -> metric
-> the TOTALS block v8.01 prints for ``perl scorer.pl <metric> KEY RESPONSE none`` (one process per metric, so its
global repeat counter never aborts a case with <= 10 repeats).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from ucdcr.formats.conll2012 import bracket_labels
from ucdcr.scoring import METRIC_TABLE

HERE = Path(__file__).resolve().parent
OUT = HERE / "generated"
V801_METRICS = tuple(metric.name for metric in METRIC_TABLE if metric.in_v801)


def doc(name: str, rows: list[str]) -> str:
    """A document from coreference columns; '' in rows is a sentence break."""
    lines = [f"#begin document {name}"]
    token = 0
    for row in rows:
        if row == "":
            lines.append("")
            continue
        lines.append(f"{name}\t0\t{token}\tw{token}\t{row}")
        token += 1
    return "\n".join([*lines, "#end document"]) + "\n"


def chains_column(n_tokens: int, chains: dict[str, list[tuple[int, int]]]) -> list[str]:
    """The coreference column of the chains (ValueError if brackets cannot express them)."""
    return bracket_labels(
        n_tokens, [(start, end, chain) for chain, spans in chains.items() for start, end in spans], True
    )


def spans_doc(name: str, n_tokens: int, chains: dict[str, list[tuple[int, int]]], sentence: int = 7) -> str:
    columns = chains_column(n_tokens, chains)
    rows: list[str] = []
    for token, column in enumerate(columns):
        if token and token % sentence == 0:
            rows.append("")
        rows.append(column)
    return doc(name, rows)


HAND_CASES: dict[str, tuple[str, str]] = {
    # twinless response mentions inside chains and as singletons
    "twinless": (
        doc("(d); part 000", ["(1", "1)", "-", "(2)", "-", "(1)", "-", "(2)", "-"]),
        doc("(d); part 000", ["(1", "1)", "(7)", "(2)", "(1)", "(1)", "(8)", "(2)", "(9)"]),
    ),
    # t10: a response span repeated in the same chain, matching a key span
    "dup_response_same_chain": (
        doc("(d); part 000", ["(1)", "-", "(1)", "(2", "2)", "-", "(2)"]),
        doc("(d); part 000", ["(1)|(1)", "-", "(1)", "(2", "2)", "-", "(2)"]),
    ),
    # t11: a response span repeated in another chain, matching a key span
    "dup_response_other_chain": (
        doc("(d); part 000", ["(1)", "-", "(1)", "(2", "2)", "-", "(2)", "(3)"]),
        doc("(d); part 000", ["(1)|(2)", "-", "(1)", "(2", "2)", "(3)", "(2)", "(3)|(1)"]),
    ),
    # t12: a twinless response span repeated (same chain and across chains)
    "dup_twinless_response": (
        doc("(d); part 000", ["(1)", "-", "(1)", "-", "(2)", "(2)", "-", "-"]),
        doc("(d); part 000", ["(1)", "(3)|(3)", "(1)", "(4)|(5)", "(2)", "(2)", "(4)", "(5)|(6)|(6)"]),
    ),
    # t13: a key span repeated in two chains
    "dup_key_two_chains": (
        doc("(d); part 000", ["(1)|(2)", "-", "(1)", "(2)", "(3", "3)", "(1)"]),
        doc("(d); part 000", ["(1)", "-", "(1)", "(2)", "(3", "3)", "(2)"]),
    ),
    # t13: a key span repeated in its own chain (nested brackets of one chain on the same span)
    "dup_key_same_chain": (
        doc("(d); part 000", ["(1|(1", "1)|1)", "(1)", "(2)", "-", "(2)", "(3)"]),
        doc("(d); part 000", ["(4", "4)", "(4)", "(5)", "(4)", "(5)", "-"]),
    ),
    # t16: a key document missing from the response
    "missing_document": (
        doc("(a); part 000", ["(1)", "-", "(1)", "(2)"]) + doc("(b); part 000", ["(1", "1)", "(1)"]),
        doc("(a); part 000", ["(1)", "-", "(1)", "(3)"]),
    ),
    # a response document the key does not have
    "extra_document": (
        doc("(a); part 000", ["(1)", "-", "(1)", "(2)"]),
        doc("(a); part 000", ["(1)", "(1)", "(1)", "(2)"]) + doc("(z); part 000", ["(1)", "(1)"]),
    ),
    # empty key document (no mentions) beside a normal one
    "empty_key": (
        doc("(a); part 000", ["-", "-", "-"]) + doc("(b); part 000", ["(1)", "(1)", "-"]),
        doc("(a); part 000", ["(1)", "(1)", "(2)"]) + doc("(b); part 000", ["(1)", "(1)", "-"]),
    ),
    # empty response document
    "empty_response": (
        doc("(a); part 000", ["(1", "1)", "(1)", "(2)", "-"]),
        doc("(a); part 000", ["-", "-", "-", "-", "-"]),
    ),
    # t03: key made only of singletons
    "key_all_singletons": (
        doc("(d); part 000", ["(1)", "(2)", "(3)", "-", "(4)"]),
        doc("(d); part 000", ["(1)", "(1)", "(3)", "(5)", "(4)"]),
    ),
    # t19: a single mention on both sides
    "single_mention": (doc("(d); part 000", ["-", "(1)", "-"]), doc("(d); part 000", ["-", "(4)", "-"])),
    # t20: key is one chain
    "key_one_chain": (
        doc("(d); part 000", ["(1)", "(1)", "(1)", "(1)"]),
        doc("(d); part 000", ["(1)", "(1)", "(2)", "(2)"]),
    ),
    # nested mentions of one chain and crossing mentions of different chains
    "nested_crossing": (
        doc("(d); part 000", ["(1|(1", "1)", "(2", "1)", "2)", "(3", "(2", "3)", "2)", "(1)"]),
        doc("(d); part 000", ["(1|(1", "1)", "(2", "1)", "2)", "(2", "(3", "2)", "3)", "(3)"]),
    ),
    # mentions spanning a sentence break
    "cross_sentence": (
        doc("(d); part 000", ["(1", "-", "", "1)", "(1)", "(2", "", "", "2)", "(2)"]),
        doc("(d); part 000", ["(1", "-", "", "1)", "(2)", "(2", "", "", "2)", "(1)"]),
    ),
    # several labels on a token, with and without |, and a close then open of one chain on one token
    "multi_label": (
        doc("(d); part 000", ["(1(2", "-", "2)", "1)|(1", "1)", "(3)(4)", "(3)|(4)"]),
        doc("(d); part 000", ["(1|(2", "-", "2)", "1)|(1", "1)", "(3)|(4)", "(3)(4)"]),
    ),
    # leading zeros: (05) and (5) are different chains
    "leading_zeros": (
        doc("(d); part 000", ["(05)", "(5)", "(05)", "(5)"]),
        doc("(d); part 000", ["(5)", "(5)", "(5)", "(5)"]),
    ),
    # several documents and parts, micro-averaged
    "multi_document": (
        doc("(x); part 000", ["(1)", "(1)", "(2)"])
        + doc("(x); part 001", ["(1", "1)", "(2)", "(2)", "(1)"])
        + doc("(y); part 000", ["(1)", "(2)", "(1)", "(2)"]),
        doc("(x); part 000", ["(1)", "(2)", "(2)"])
        + doc("(y); part 000", ["(1)", "(1)", "(1)", "(2)"])
        + doc("(x); part 001", ["(1", "1)", "(1)", "(2)", "(1)"]),
    ),
    # a document name occurring twice in the response: the last occurrence counts
    "duplicate_document_name": (
        doc("(d); part 000", ["(1)", "(1)", "(2)"]),
        doc("(d); part 000", ["(1)", "(2)", "(3)"]) + doc("(d); part 000", ["(1)", "(1)", "(3)"]),
    ),
    # perfect response
    "perfect": (
        doc("(d); part 000", ["(1", "1)", "(2)", "(1)", "(3)", "(2)"]),
        doc("(d); part 000", ["(7", "7)", "(8)", "(7)", "(9)", "(8)"]),
    ),
    # no response mention matches the key
    "all_twinless": (
        doc("(d); part 000", ["(1", "1)", "-", "(1)", "-", "-"]),
        doc("(d); part 000", ["(1)", "(1", "1)", "-", "(2)", "(2)"]),
    ),
    # OntoNotes double antecedent (N+D) is discarded
    "double_antecedent": (
        doc("(d); part 000", ["(1)", "(1+2)", "(1)", "(2)"]),
        doc("(d); part 000", ["(1)", "(1)", "(1)", "(2)"]),
    ),
    # Windows line endings
    "crlf": (
        doc("(d); part 000", ["(1)", "-", "(1)", "(2)"]).replace("\n", "\r\n"),
        doc("(d); part 000", ["(1)", "(1)", "(1)", "(2)"]).replace("\n", "\r\n"),
    ),
}


def space_separated() -> tuple[str, str]:
    """t18: columns separated by spaces (no TAB)."""

    def build(rows: list[str]) -> str:
        body = [f"d 0 {i} w{i} {row}" for i, row in enumerate(rows)]
        return "#begin document (d); part 000\n" + "\n".join(body) + "\n#end document\n"

    return build(["(1", "1)", "(1)", "-", "(2)", "(2)"]), build(["(1", "1)", "(2)", "-", "(2)", "(1)"])


def random_chains(rng: random.Random, n_tokens: int, n_mentions: int, n_chains: int, allow_dups: bool):
    spans: set[tuple[int, int]] = set()
    while len(spans) < n_mentions:
        start = rng.randrange(n_tokens)
        spans.add((start, min(n_tokens - 1, start + rng.choice((0, 0, 0, 1, 2, 3)))))
    ordered = sorted(spans)
    rng.shuffle(ordered)
    chains: dict[str, list[tuple[int, int]]] = {}
    for span in ordered:
        chains.setdefault(str(rng.randrange(n_chains)), []).append(span)
    if allow_dups:
        for _ in range(2):
            chain, other = rng.sample(sorted(chains), 2)
            chains[other].append(rng.choice(chains[chain]))
    return chains


def perturb(rng: random.Random, key: dict, n_tokens: int, twinless_dups: bool) -> dict:
    """A response: drop some mentions, move some to other chains, split and merge chains, add twinless ones."""
    response: dict[str, list[tuple[int, int]]] = {}
    for chain, spans in key.items():
        for span in spans:
            roll = rng.random()
            if roll < 0.1:
                continue
            target = chain if roll < 0.75 else (chain + "s" if roll < 0.85 else rng.choice(sorted(key)))
            if span not in response.setdefault(target, []):
                response[target].append(span)
    taken = {span for spans in key.values() for span in spans}
    for i in range(max(2, len(taken) // 8)):
        start = rng.randrange(n_tokens)
        span = (start, min(n_tokens - 1, start + rng.choice((0, 1, 4))))
        if span not in taken:
            response.setdefault(rng.choice([*sorted(response), f"t{i}"]), []).append(span)
            if twinless_dups and i % 3 == 0:
                response.setdefault(rng.choice(sorted(response)), []).append(span)
    return {f"{i}": spans for i, spans in enumerate(spans for spans in response.values() if spans)}


def writable(n_tokens: int, chains: dict) -> bool:
    try:
        chains_column(n_tokens, chains)
    except ValueError:
        return False
    return True


def random_case(seed: int, n_docs: int, n_tokens: int, n_mentions: int, n_chains: int, dups: bool) -> tuple[str, str]:
    rng = random.Random(seed)
    key_text = response_text = ""
    for index in range(n_docs):
        name = f"(random{seed}/{index}); part 000"
        while True:
            key = random_chains(rng, n_tokens, n_mentions, n_chains, dups)
            response = perturb(rng, key, n_tokens, dups)
            if writable(n_tokens, key) and writable(n_tokens, response):
                break
        key_text += spans_doc(name, n_tokens, {str(int(c) + 1): s for c, s in key.items()})
        response_text += spans_doc(name, n_tokens, {str(int(c) + 1): s for c, s in response.items()})
    return key_text, response_text


def all_cases() -> dict[str, tuple[str, str]]:
    cases = dict(HAND_CASES)
    cases["space_separated"] = space_separated()
    cases["random_one_doc"] = random_case(1, 1, 400, 120, 40, dups=False)
    cases["random_five_docs"] = random_case(2, 5, 120, 40, 15, dups=False)
    cases["random_duplicates"] = random_case(3, 3, 150, 50, 15, dups=True)
    cases["random_large_chains"] = random_case(4, 1, 600, 250, 12, dups=False)
    return cases


def perl_block(scorer: Path, metric: str, key: Path, response: Path) -> str:
    run = subprocess.run(
        ["perl", str(scorer / "scorer.pl"), metric, str(key), str(response), "none"],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = run.stdout.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("====== TOTALS"))
    return "\n" + "\n".join(lines[start:])


def many_repeats() -> tuple[str, str]:
    """12 repeated response mentions: v8.01 refuses to score (> 10), ucdcr warns and scores."""
    key_rows = ["(1)", "(1)", "(2)", "(2)", "(3)", "(3)", "(4)"]
    response_rows = ["(1)|(1)|(2)", "(1)|(3)", "(2)|(2)|(1)", "(2)|(4)", "(3)|(3)|(5)", "(3)|(5)|(6)", "(6)|(4)|(5)"]
    return doc("(d); part 000", key_rows), doc("(d); part 000", response_rows)


def main(scorer: Path, commit: str, scorer_without_abort: Path | None = None) -> None:
    """Write the cases; ``scorer_without_abort`` is a copy of v8.01 with its "> 10 repeats" exit removed."""
    OUT.mkdir(exist_ok=True)
    expected: dict[str, object] = {
        "_source": f"perl scorer.pl <metric> KEY RESPONSE none, v8.01 commit {commit}",
        "_source_many_repeats": "same, with the `exit 1` after more than 10 repeated mentions removed",
    }
    cases = all_cases()
    if scorer_without_abort:
        cases["many_repeats"] = many_repeats()
    for name, (key_text, response_text) in cases.items():
        key, response = OUT / f"{name}.key", OUT / f"{name}.response"
        key.write_bytes(key_text.encode())
        response.write_bytes(response_text.encode())
        run_with = scorer_without_abort if name == "many_repeats" else scorer
        expected[name] = {metric: perl_block(run_with, metric, key, response) for metric in V801_METRICS}
    official = HERE / "official"
    for response in sorted(official.glob("TC-*.response")):
        key = official / (response.name.rsplit("-", 1)[0] + ".key")
        expected["official/" + response.stem] = {
            metric: perl_block(scorer, metric, key, response) for metric in V801_METRICS
        }
    (HERE / "expected_v801.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]) if len(sys.argv) > 3 else None)
