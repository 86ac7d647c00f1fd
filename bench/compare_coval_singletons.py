"""`ucdcr score --remove-singletons` beside coval's ``remove_singletons`` on coval's own test files with singletons.

Usage::

    git clone https://github.com/ns-moosavi/coval /tmp/coval      # GitHub only: PyPI's "coval" is unrelated
    python bench/compare_coval_singletons.py --coval /tmp/coval

For every key file of coval's ``tests/`` folder and each of its responses (``<stem>-N.response``, or the other files
of the key's folder), where key or response has a chain with one mention in some document, both scorers run with
singletons removed: coval's reader (``coval.conll.reader.get_coref_infos(..., keep_singletons=False)``) and
metrics (``evaluate_documents``: MUC, B3, CEAFe, LEA) in process, and :func:`ucdcr.scoring.score_files` with
``remove_singletons=True``. Compared, per pair:

1. the number of singleton chains removed from the key and from the response (coval counts them in its reader);
2. the chains left in every document, as sets of document-wide token spans (coval's mentions are sentence, start,
   end; converted with the sentence lengths of the file);
3. recall, precision and F1 of MUC, B3, CEAFe and LEA (exact floats; a difference above 1e-9 is a disagreement).

Every disagreement is printed with its reason, found by looking at the files, and with whether the two scorers
disagree on the pair with singletons kept as well (then the difference is not one of singleton removal):

- coval's reader registers an open bracket only when ``|`` or the end of the column follows it, so ``(1(3`` is
  one open (of 3) there and two in v8.01 and ucdcr (:mod:`ucdcr.formats.conll2012`); the closes of the lost open
  are then "Problem in the coreference annotation" lines in coval;
- a span occurring twice in one document: v8.01 (ucdcr) and coval identify repeated mentions differently
  (:mod:`ucdcr.scoring.mentions`).

Where the first cause is present, the pair is compared again with ``|`` written between the response's opens, to
show what is left of the second.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ucdcr.formats.conll2012 import read_conll
from ucdcr.scoring import score_files
from ucdcr.scoring.scores import drop_singletons

METRICS = {"muc": "muc", "bcub": "b_cubed", "ceafe": "ceafe", "lea": "lea"}
"""ucdcr's metric names and coval's functions (coval's ``scorer.py all`` runs these four)."""
TOLERANCE = 1e-9


def import_coval(path: Path) -> tuple[Any, Any]:
    """``coval.conll.reader`` and ``coval.eval.evaluator`` from a checkout of ns-moosavi/coval."""
    if not (path / "coval" / "eval" / "evaluator.py").is_file():
        sys.exit(f"--coval {path}: not a checkout of github.com/ns-moosavi/coval (no coval/eval/evaluator.py)")
    sys.path.insert(0, str(path))
    from coval.conll import reader
    from coval.eval import evaluator

    return reader, evaluator


def pairs(tests: Path) -> Iterator[tuple[Path, Path]]:
    """(key, response) pairs of coval's test folder: ``TC-X.key`` with ``TC-X-N.response``, and in a folder with a
    file named ``key`` every other file of that folder."""
    for key in sorted(tests.glob("*.key")):
        for response in sorted(tests.glob(f"{key.stem}-*.response")):
            yield key, response
    for key in sorted(tests.glob("*/key")):
        for response in sorted(key.parent.iterdir()):
            if response.name != "key" and response.is_file():
                yield key, response


def has_singletons(path: Path) -> bool:
    return any(len(spans) == 1 for doc in read_conll(path).documents.values() for spans in doc.chains.values())


def sentence_offsets(reader: Any, path: Path) -> dict[str, list[int]]:
    """Per coval document name, the document-wide index of every sentence's first token (as coval splits them)."""
    offsets: dict[str, list[int]] = {}
    for name, sentences in reader.get_doc_lines(str(path)).items():
        starts, total = [], 0
        for sentence in sentences:
            starts.append(total)
            total += len(sentence)
        offsets[name] = starts
    return offsets


def coval_chains(clusters: list[list[Any]], starts: list[int]) -> set[frozenset[tuple[int, int]]]:
    return {frozenset((starts[m.sent_num] + m.start, starts[m.sent_num] + m.end) for m in chain) for chain in clusters}


def ucdcr_chains(path: Path, name: str, remove_singletons: bool) -> set[frozenset[tuple[int, int]]]:
    chains = read_conll(path).documents[name].clusters
    kept = drop_singletons(chains)[0] if remove_singletons else chains
    return {frozenset(chain) for chain in kept}


def coval_removed(reader: Any, path: Path) -> int:
    """Singleton chains coval's reader removes from one file (the count it prints)."""
    return sum(
        reader.get_doc_mentions(name, lines, False)[1] for name, lines in reader.get_doc_lines(str(path)).items()
    )


def compare(reader: Any, evaluator: Any, key: Path, response: Path, remove_singletons: bool = True) -> list[str]:
    """Every disagreement between coval and ucdcr on one pair, as text (with or without singleton removal)."""
    problems: list[str] = []
    with open(os.devnull, "w") as quiet:
        stdout, sys.stdout = sys.stdout, quiet  # coval prints its counts and its reading problems
        try:
            infos = reader.get_coref_infos(str(key), str(response), False, False, not remove_singletons, False)
            removed = (coval_removed(reader, key), coval_removed(reader, response))
        finally:
            sys.stdout = stdout
    ours = score_files(key, response, list(METRICS), remove_singletons=remove_singletons)
    if remove_singletons and ours.removed_singletons != removed:
        problems.append(f"removed singletons (key, response): coval {removed}, ucdcr {ours.removed_singletons}")
    key_starts, response_starts = sentence_offsets(reader, key), sentence_offsets(reader, response)
    for name, (key_clusters, response_clusters, *_) in infos.items():
        ours_name = name.rstrip("\n")
        for side, clusters, starts, path in (
            ("key", key_clusters, key_starts, key),
            ("response", response_clusters, response_starts, response),
        ):
            if coval_chains(clusters, starts[name]) != ucdcr_chains(path, ours_name, remove_singletons):
                problems.append(f"{ours_name}: the {side} chains left differ")
    for name, function in METRICS.items():
        theirs = evaluator.evaluate_documents(infos, getattr(evaluator, function), beta=1)
        mine = (ours[name].recall, ours[name].precision, ours[name].f1)
        if max(abs(a - b) for a, b in zip(theirs, mine, strict=True)) > TOLERANCE:
            shown = ", ".join(f"{a:.4f}/{b:.4f}" for a, b in zip(theirs, mine, strict=True))
            problems.append(f"{name} R, P, F1 coval/ucdcr: {shown}")
    return problems


UNSEPARATED_OPENS = re.compile(r"\(\d+\(")


def reasons(key: Path, response: Path) -> list[str]:
    """The known causes of a disagreement present in the pair's files (module docstring)."""
    found = []
    texts = key.read_text(encoding="utf-8") + response.read_text(encoding="utf-8")
    if UNSEPARATED_OPENS.search(texts):
        found.append("two opens without | between them (e.g. '(1(3'): coval reads one, v8.01 and ucdcr two")
    if duplicate_spans(key) or duplicate_spans(response):
        found.append("a span occurs twice in one document: v8.01 (ucdcr) and coval identify repeats differently")
    return found or ["unexplained"]


def compare_separated(reader: Any, evaluator: Any, key: Path, response: Path) -> list[str]:
    """The disagreements once the response's opens are separated by ``|`` (what is left of the other causes)."""
    text = response.read_text(encoding="utf-8")
    while UNSEPARATED_OPENS.search(text):
        text = re.sub(r"\((\d+)\(", r"(\1|(", text)
    with tempfile.TemporaryDirectory() as folder:
        separated = Path(folder) / response.name
        separated.write_text(text, encoding="utf-8")
        return compare(reader, evaluator, key, separated)


def duplicate_spans(path: Path) -> bool:
    """Whether a document of the file holds one span twice (where coval and v8.01 identify mentions differently)."""
    for doc in read_conll(path).documents.values():
        spans = [span for chain in doc.chains.values() for span in chain]
        if len(spans) != len(set(spans)):
            return True
    return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--coval", type=Path, required=True, help="a checkout of github.com/ns-moosavi/coval")
    args = parser.parse_args()
    reader, evaluator = import_coval(args.coval)
    compared = agreed = 0
    for key, response in pairs(args.coval / "tests"):
        if not (has_singletons(key) or has_singletons(response)):
            continue
        compared += 1
        problems = compare(reader, evaluator, key, response)
        label = f"{key.relative_to(args.coval)} / {response.name}"
        if not problems:
            agreed += 1
            continue
        also_kept = bool(compare(reader, evaluator, key, response, remove_singletons=False))
        print(f"DISAGREE {label}; with singletons kept they {'disagree too' if also_kept else 'agree'}")
        for reason in reasons(key, response):
            print(f"    reason: {reason}")
        for problem in problems:
            print(f"    {problem}")
        if UNSEPARATED_OPENS.search(response.read_text(encoding="utf-8")):
            print("    with '|' written between the opens of the response:")
            for problem in compare_separated(reader, evaluator, key, response) or ["agree"]:
                print(f"        {problem}")
    print(f"{compared} key/response pairs with singletons; {agreed} agree on removed singletons, chains and scores")


if __name__ == "__main__":
    main()
