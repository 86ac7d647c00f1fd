"""Benchmark `ucdcr.scoring` on cross-document "meta documents" against scorch (PyPI), in one process.

Generates one meta document of 5,000 mentions / 1,000 chains and one of 50,000 mentions / 10,000 chains (skewed
chain sizes), and a response with missed mentions, twinless mentions (in chains and as singletons), moved mentions,
split chains and merged chains. Prints the wall time of ucdcr (all six metrics, and per metric) beside scorch's
metric functions on the same clusters, and the largest difference between the two scores.

    python bench/bench_scorer.py [--repeat 3] [--scorch-ceaf-large]

scorch's CEAF scores every key x response chain pair in Python (10^8 pairs for the large case), so it is skipped
there unless ``--scorch-ceaf-large`` is given. For scale (SCORER.md, same machines): the reference scorer v8.01 needs
about 1,026 s and 7.4 GB for the 5,000-mention meta document and cannot finish the 50,000-mention one.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ucdcr.scoring import score_clusters
from ucdcr.scoring.api import score_files
from ucdcr.scoring.conll import write_conll
from ucdcr.scoring.mentions import identify_mentions
from ucdcr.scoring.metrics import METRIC_FUNCTIONS, DocumentOverlap

SCORCH_NAMES = {"muc": "muc", "bcub": "b_cubed", "ceafm": "ceaf_m", "ceafe": "ceaf_e", "blanc": "blanc"}


def meta_document(n_mentions: int, n_chains: int, seed: int = 0) -> tuple[list[list[str]], list[list[str]]]:
    """Key and response clusters of document-qualified mention ids ("doc17:42")."""
    rng = random.Random(seed)
    weights = [1 / (rank + 1) ** 0.8 for rank in range(n_chains)]
    key: list[list[str]] = [[] for _ in range(n_chains)]
    mentions = [f"doc{i % (n_mentions // 50 or 1)}:{i}" for i in range(n_mentions)]
    for chain, mention in zip(range(n_chains), mentions[:n_chains], strict=True):
        key[chain].append(mention)  # every chain gets at least one mention
    chains = rng.choices(range(n_chains), weights, k=n_mentions - n_chains)
    for mention, chain in zip(mentions[n_chains:], chains, strict=True):
        key[chain].append(mention)
    return key, perturb(key, rng)


def perturb(key: list[list[str]], rng: random.Random) -> list[list[str]]:
    """Drop 8%, move 4% to a random chain, split 10% of chains, merge 5% of chain pairs, add 8% twinless."""
    response = [[m for m in chain if rng.random() >= 0.08] for chain in key]
    for chain in response:
        for mention in [m for m in chain if rng.random() < 0.04]:
            chain.remove(mention)
            rng.choice(response).append(mention)
    for index in rng.sample(range(len(response)), len(response) // 10):
        chain = response[index]
        cut = len(chain) // 2
        response[index], tail = chain[:cut], chain[cut:]
        response.append(tail)
    for _ in range(len(key) // 20):
        first, second = rng.sample(range(len(response)), 2)
        response[first] += response[second]
        response[second] = []
    n_mentions = sum(map(len, key))
    for i in range(int(n_mentions * 0.08)):
        twinless = f"twinless:{i}"
        if rng.random() < 0.5:
            rng.choice(response).append(twinless)
        else:
            response.append([twinless])
    return [chain for chain in response if chain]


def timed(function: Callable[[], object], repeat: int) -> tuple[float, object]:
    """Best wall time of ``repeat`` runs, and the last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def time_files(key: list[list[str]], response: list[list[str]], repeat: int) -> float:
    """Write the meta document as CoNLL-2012 files (one mention per token) and time ``score_files`` on them."""
    tokens = {mention: index for index, mention in enumerate(dict.fromkeys(m for c in key + response for m in c))}

    def spans(clusters: list[list[str]]) -> dict[str, list[tuple[int, int]]]:
        return {str(i): [(tokens[m], tokens[m]) for m in chain] for i, chain in enumerate(clusters)}

    words = [["w"] * len(tokens)]
    with tempfile.TemporaryDirectory() as folder:
        key_path, response_path = Path(folder) / "key.conll", Path(folder) / "response.conll"
        write_conll(key_path, [("(meta); part 000", words, spans(key))])
        write_conll(response_path, [("(meta); part 000", words, spans(response))])
        seconds, _ = timed(lambda: score_files(key_path, response_path), repeat)
    return seconds


def bench_case(n_mentions: int, n_chains: int, repeat: int, scorch_ceaf: bool) -> None:
    import scorch.scores

    key, response = meta_document(n_mentions, n_chains)
    n_response = sum(map(len, response))
    print(f"\n== meta document: {n_mentions:,} key mentions / {n_chains:,} chains; "
          f"response {n_response:,} mentions / {len(response):,} chains ==")
    total, scores = timed(lambda: score_clusters(key, response), repeat)
    print(f"ucdcr all 6 metrics (muc bcub ceafm ceafe blanc lea), end to end: {total:8.3f} s")
    file_seconds = time_files(key, response, repeat)
    print(f"ucdcr score_files on the same as CoNLL-2012 files (read + score): {file_seconds:8.3f} s")
    identify_time, doc = timed(lambda: identify_mentions(key, response), repeat)
    print(f"  mention identification + encoding               {identify_time:8.3f} s")
    for name, function in METRIC_FUNCTIONS.items():
        # a fresh overlap each run, so the shared contingency tables are included in every metric's time
        seconds, _ = timed(lambda function=function: function(DocumentOverlap(doc)), repeat)
        print(f"  {name:6s}                                           {seconds:8.3f} s")
    key_sets, response_sets = [set(c) for c in key], [set(c) for c in response]
    scorch_total = 0.0
    for name, scorch_name in SCORCH_NAMES.items():
        if name.startswith("ceaf") and n_mentions > 10_000 and not scorch_ceaf:
            print(f"scorch {scorch_name:8s} skipped ({len(key):,} x {len(response):,} chain pairs in Python; "
                  "--scorch-ceaf-large to run)")
            continue
        scorch_metric = getattr(scorch.scores, scorch_name)
        seconds, values = timed(lambda metric=scorch_metric: metric(key_sets, response_sets), 1)
        scorch_total += seconds
        ours = scores[name]
        difference = max(abs(a - b) for a, b in zip(values, (ours.recall, ours.precision, ours.f1), strict=True))
        print(f"scorch {scorch_name:8s} {seconds:8.3f} s   max |scorch - ucdcr| over R,P,F1 = {difference:.2e}")
    print(f"scorch total (metrics run)                          {scorch_total:8.3f} s")
    print("ucdcr F1: " + "  ".join(f"{name} {scores[name].f1 * 100:.2f}" for name in scores)
          + f"  conll {scores.conll_f1 * 100:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per ucdcr timing (best is printed)")
    parser.add_argument("--scorch-ceaf-large", action="store_true", help="also run scorch's CEAF on 50,000 mentions")
    args = parser.parse_args()
    bench_case(5_000, 1_000, args.repeat, scorch_ceaf=True)
    bench_case(50_000, 10_000, args.repeat, scorch_ceaf=args.scorch_ceaf_large)
    print("\nTargets: 5,000-mention meta document < 1 s; 50,000-mention meta document < 2 s (all metrics).")


if __name__ == "__main__":
    main()
