"""Benchmark `ucdcr.scoring` on cross-document "meta documents" against scorch, coval and the v8.01 Perl scorer.

Generates one meta document of 5,000 mentions / 1,000 chains and one of 50,000 mentions / 10,000 chains (skewed
chain sizes), and a response with missed mentions, twinless mentions (in chains and as singletons), moved mentions,
split chains and merged chains (duplicate-free: no span occurs twice on one side). Prints the wall time of ucdcr
(all six metrics, and per metric) beside its peers on the same input, how far their scores are from ours, and a
summary table.

    python bench/bench_scorer.py [--repeat 3] [--scorch-large]
        [--coval /tmp/coval [--coval-ceaf-large]]
        [--refscorer /tmp/reference-coreference-scorers [--refscorer-sizes 1000,2000]]

Peers (all optional; without them only ucdcr and scorch run):

- scorch (PyPI): its metric functions on the same clusters of document-qualified mention ids, in process.
- ``--coval PATH``: a checkout of https://github.com/ns-moosavi/coval (GitHub only; the PyPI package named
  ``coval`` is unrelated). PATH goes on ``sys.path``; ``coval.eval.evaluator`` scores the same clusters in process
  (MUC, B3, CEAFm, CEAFe, LEA; coval has no BLANC and its CEAFm divides by chain counts instead of mention counts,
  docs/scorer.md#other-scorers), and ``coval.conll.reader`` + evaluator score the CoNLL files (coval's whole
  pipeline). coval's totals cover what its own ``scorer.py all`` computes (MUC, B3, CEAFe, LEA); its CEAFm is timed
  but not counted.
- ``--refscorer DIR``: a checkout of https://github.com/conll/reference-coreference-scorers; ``perl scorer.pl all
  KEY RESPONSE none`` runs in a subprocess on the CoNLL files written to a temporary folder, for meta documents of
  ``--refscorer-sizes`` mentions (5 mentions per chain; default 1000,2000). Every printed line after the version
  line is compared with ``ucdcr score`` on the same files. 5000 is allowed but takes v8.01 tens of minutes and
  several GB (the measured figures are in docs/performance.md#scorer); 50,000 mentions in one document cannot be
  scored by v8.01.

scorch's and coval's CEAF score every key x response chain pair in Python (10^8 pairs for the large case) and
scorch's BLANC peaks at 13.7 GB there, so these are skipped on the large case unless ``--scorch-large`` /
``--coval-ceaf-large`` is given (``*`` in the summary marks such incomplete peer totals).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ucdcr.formats.conll2012 import write_conll
from ucdcr.scoring import METRIC_TABLE, METRICS, MetricScore, Scores, score_clusters, score_files
from ucdcr.scoring.mentions import identify_mentions
from ucdcr.scoring.metrics import DocumentOverlap

SCORCH_NAMES = {"muc": "muc", "bcub": "b_cubed", "ceafm": "ceaf_m", "ceafe": "ceaf_e", "blanc": "blanc"}
SCORCH_COSTS = {
    "ceafm": "every key x response chain pair in Python",
    "ceafe": "every key x response chain pair in Python",
    "blanc": "13.7 GB peak at 50,000 mentions",
}
"""scorch metrics skipped on the large case by default, and why (measured here)."""
COVAL_NAMES = {"muc": "muc", "bcub": "b_cubed", "ceafm": "ceafm", "ceafe": "ceafe", "lea": "lea"}
COVAL_EXPECTED_EQUAL = ("muc", "bcub", "ceafe", "lea")
"""Metrics on which coval equals v8.01 (LEA: coval is the reference) on duplicate-free input
(docs/scorer.md#other-scorers)."""
V801_METRICS = tuple(metric.name for metric in METRIC_TABLE if metric.in_v801)
LARGE = 10_000
"""Above this many mentions, the Python CEAFs of scorch and coval are skipped unless asked for."""


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


def timed(function: Callable[[], object], repeat: int) -> tuple[float, Any]:
    """Best wall time of ``repeat`` runs, and the last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def write_meta_files(folder: Path, key: list[list[str]], response: list[list[str]]) -> tuple[Path, Path]:
    """Write the meta document as one CoNLL-2012 document per side (one token per mention, one sentence)."""
    tokens = {mention: index for index, mention in enumerate(dict.fromkeys(m for c in key + response for m in c))}

    def spans(clusters: list[list[str]]) -> dict[str, list[tuple[int, int]]]:
        return {str(i): [(tokens[m], tokens[m]) for m in chain] for i, chain in enumerate(clusters)}

    words = [["w"] * len(tokens)]
    key_path, response_path = folder / "key.conll", folder / "response.conll"
    write_conll(key_path, [("(meta); part 000", words, spans(key))])
    write_conll(response_path, [("(meta); part 000", words, spans(response))])
    return key_path, response_path


def max_difference(values: tuple[float, float, float], ours: MetricScore) -> float:
    """Largest |peer - ucdcr| over (recall, precision, F1)."""
    return max(abs(a - b) for a, b in zip(values, (ours.recall, ours.precision, ours.f1), strict=True))


def agreement(differences: dict[str, float], names: tuple[str, ...]) -> str:
    """``<metrics run>: within 1e-12`` when each is that close to ucdcr, else the worst one."""
    checked = {name: differences[name] for name in names if name in differences}
    if not checked:
        return "n/a"
    worst = max(checked, key=checked.__getitem__)
    verdict = "within 1e-12" if checked[worst] <= 1e-12 else f"{worst} off by {checked[worst]:.1e}"
    return f"{'/'.join(checked)}: {verdict}"


def bench_ucdcr(key: list[list[str]], response: list[list[str]], folder: Path, repeat: int) -> dict[str, Any]:
    """Time ucdcr in process (clusters, files, per metric) and return the scores and times."""
    total, scores = timed(lambda: score_clusters(key, response), repeat)
    print(f"ucdcr all {len(METRICS)} metrics ({' '.join(METRICS)}), end to end: {total:8.3f} s")
    key_path, response_path = write_meta_files(folder, key, response)
    file_seconds, _ = timed(lambda: score_files(key_path, response_path), repeat)
    print(f"ucdcr score_files on the same as CoNLL-2012 files (read + score): {file_seconds:8.3f} s")
    identify_time, doc = timed(lambda: identify_mentions(key, response), repeat)
    print(f"  mention identification + encoding               {identify_time:8.3f} s")
    for metric in METRIC_TABLE:
        # a fresh overlap each run, so the shared contingency tables are included in every metric's time
        seconds, _ = timed(lambda function=metric.function: function(DocumentOverlap(doc)), repeat)
        print(f"  {metric.name:6s}                                           {seconds:8.3f} s")
    return {"scores": scores, "ucdcr": total, "ucdcr_files": file_seconds, "files": (key_path, response_path)}


def bench_scorch(key: list[list[str]], response: list[list[str]], scores: Scores, run_all: bool) -> dict[str, Any]:
    """scorch's metric functions on the same clusters (one run each; CEAF and BLANC only if ``run_all``)."""
    import scorch.scores

    key_sets, response_sets = [set(c) for c in key], [set(c) for c in response]
    total, differences = 0.0, {}
    for name, scorch_name in SCORCH_NAMES.items():
        if name in SCORCH_COSTS and not run_all:
            print(f"scorch {scorch_name:8s} skipped ({SCORCH_COSTS[name]}; --scorch-large to run)")
            continue
        metric = getattr(scorch.scores, scorch_name)
        seconds, values = timed(lambda metric=metric: metric(key_sets, response_sets), 1)
        total += seconds
        differences[name] = max_difference(values, scores[name])
        print(f"scorch {scorch_name:8s} {seconds:8.3f} s   max |scorch - ucdcr| over R,P,F1 = {differences[name]:.2e}")
    print(f"scorch total (metrics run)                          {total:8.3f} s")
    return {
        "scorch": total,
        "scorch_complete": run_all,
        "scorch_agree": agreement(differences, ("muc", "bcub", "ceafm", "ceafe")),
    }


def import_coval(path: Path) -> tuple[Any, Any]:
    """``coval.eval.evaluator`` and ``coval.conll.reader`` from a checkout of ns-moosavi/coval."""
    if not (path / "coval" / "eval" / "evaluator.py").is_file():
        sys.exit(f"--coval {path}: not a checkout of github.com/ns-moosavi/coval (no coval/eval/evaluator.py)")
    sys.path.insert(0, str(path))
    from coval.conll import reader
    from coval.eval import evaluator

    return evaluator, reader


def coval_metrics(evaluator: Any, infos: list[tuple], run_ceaf: bool) -> dict[str, tuple[float, tuple[float, ...]]]:
    """Time each coval metric over documents' coref infos (micro-averaged): {name: (seconds, (R, P, F1))}."""
    results = {}
    for name, coval_name in COVAL_NAMES.items():
        if name.startswith("ceaf") and not run_ceaf:
            continue
        metric = getattr(evaluator, coval_name)

        def run(metric: Any = metric) -> tuple[float, float, float]:
            scorer = evaluator.Evaluator(metric)
            for info in infos:
                scorer.update(info)
            return scorer.get_recall(), scorer.get_precision(), scorer.get_f1()

        results[name] = timed(run, 1)
    return results


def coval_all_seconds(results: dict[str, tuple[float, Any]]) -> float:
    """Time of the metrics coval's own ``scorer.py all`` runs (MUC, B3, CEAFe, LEA: not its wrong CEAFm)."""
    return sum(seconds for name, (seconds, _) in results.items() if name != "ceafm")


def bench_coval(
    coval: tuple[Any, Any],
    key: list[list[str]],
    response: list[list[str]],
    scores: Scores,
    files: tuple[Path, Path],
    run_ceaf: bool,
) -> dict[str, Any]:
    """coval's metric functions on the same clusters, then coval's reader + metrics on the CoNLL files."""
    evaluator, reader = coval
    start = time.perf_counter()
    info = (key, response, reader.get_mention_assignments(key, response), reader.get_mention_assignments(response, key))
    prepare = time.perf_counter() - start
    results = coval_metrics(evaluator, [info], run_ceaf)
    differences = {name: max_difference(values, scores[name]) for name, (_, values) in results.items()}
    for name, (seconds, _) in results.items():
        note = "   (coval's CEAFm is wrong: chain counts as denominators)" if name == "ceafm" else ""
        print(
            f"coval  {COVAL_NAMES[name]:8s} {seconds:8.3f} s   max |coval - ucdcr| over R,P,F1 = "
            f"{differences[name]:.2e}{note}"
        )
    if not run_ceaf:
        print(
            f"coval  ceafe/ceafm skipped ({len(key):,} x {len(response):,} chain pairs in Python; "
            "--coval-ceaf-large to run)"
        )
    print("coval  blanc    (coval has no BLANC)")
    total = prepare + coval_all_seconds(results)
    print(f"coval total (mention assignments + muc bcub ceafe lea){total:8.3f} s")
    start = time.perf_counter()
    infos = reader.get_coref_infos(str(files[0]), str(files[1]))
    read = time.perf_counter() - start
    file_results = coval_metrics(evaluator, list(infos.values()), run_ceaf)
    file_total = read + coval_all_seconds(file_results)
    file_differences = {name: max_difference(values, scores[name]) for name, (_, values) in file_results.items()}
    print(
        f"coval on the CoNLL files: read {read:.3f} s + muc bcub ceafe lea = {file_total:8.3f} s; "
        f"agreement with ucdcr: {agreement(file_differences, COVAL_EXPECTED_EQUAL)}"
    )
    return {
        "coval": total,
        "coval_files": file_total,
        "coval_complete": run_ceaf,
        "coval_agree": agreement(differences, COVAL_EXPECTED_EQUAL),
    }


def bench_case(n_mentions: int, n_chains: int, args: argparse.Namespace, coval: tuple | None) -> dict[str, Any]:
    """Every in-process scorer on one generated meta document; returns the figures for the summary."""
    key, response = meta_document(n_mentions, n_chains)
    n_response = sum(map(len, response))
    print(
        f"\n== meta document: {n_mentions:,} key mentions / {n_chains:,} chains; "
        f"response {n_response:,} mentions / {len(response):,} chains =="
    )
    with tempfile.TemporaryDirectory(prefix="bench_scorer_") as folder:
        row = {"size": n_mentions, **bench_ucdcr(key, response, Path(folder), args.repeat)}
        scores = row["scores"]
        large = n_mentions > LARGE
        row.update(bench_scorch(key, response, scores, run_all=not large or args.scorch_large))
        if coval is not None:
            row.update(bench_coval(coval, key, response, scores, row["files"], not large or args.coval_ceaf_large))
    print(
        "ucdcr F1: "
        + "  ".join(f"{name} {scores[name].f1 * 100:.2f}" for name in scores)
        + f"  conll {scores.conll_f1 * 100:.2f}"
    )
    return row


def run_measured(command: list[str], output: Path) -> tuple[float, float | None, int]:
    """Run ``command`` with stdout to ``output``: wall seconds, peak RSS in GB (None if unknown), exit code.

    The peak comes from GNU time's ``%M``: ``os.wait4`` in this process would report at least this (large) Python
    process's peak, since the forked child inherits its memory high-water mark until ``exec``.
    """
    gnu_time = Path("/usr/bin/time")
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        wrapped = [str(gnu_time), "-f", "%M", "-o", rss.name, *command] if gnu_time.exists() else command
        start = time.perf_counter()
        with output.open("w") as handle:
            process = subprocess.run(wrapped, stdout=handle, stderr=subprocess.PIPE, check=False)
        seconds = time.perf_counter() - start
        peak = rss.read().strip().splitlines()
    if process.returncode:
        print(process.stderr.decode(errors="replace")[-2000:], file=sys.stderr)
    kilobytes = peak[-1] if peak and peak[-1].isdigit() else None
    return seconds, int(kilobytes) / 1024**2 if kilobytes else None, process.returncode


def compare_lines(v801: list[str], ours: list[str]) -> list[tuple[str, str]]:
    """Pairs of differing lines (after each side's first, version/title, line)."""
    v801_body, ours_body = v801[1:], ours[1:]
    differing = [(a, b) for a, b in zip(v801_body, ours_body, strict=False) if a != b]
    if len(v801_body) != len(ours_body):
        differing.append((f"<{len(v801_body)} lines>", f"<{len(ours_body)} lines>"))
    return differing


def bench_refscorer(scorer_dir: Path, n_mentions: int, repeat: int) -> dict[str, Any]:
    """v8.01 ``all`` on one meta document (5 mentions per chain) beside ``ucdcr score`` on the same files."""
    key, response = meta_document(n_mentions, n_mentions // 5)
    print(
        f"\n== v8.01 on a meta document of {n_mentions:,} key mentions / {n_mentions // 5:,} chains; "
        f"response {sum(map(len, response)):,} mentions / {len(response):,} chains =="
    )
    metrics = ",".join(V801_METRICS)
    with tempfile.TemporaryDirectory(prefix="bench_scorer_v801_") as name:
        folder = Path(name)
        key_path, response_path = write_meta_files(folder, key, response)
        perl = ["perl", str(scorer_dir / "scorer.pl"), "all", str(key_path), str(response_path), "none"]
        perl_seconds, perl_gb, perl_code = run_measured(perl, folder / "v801.txt")
        cli = [sys.executable, "-m", "ucdcr", "score", str(key_path), str(response_path), "--metric", metrics]
        cli_seconds, _, cli_code = run_measured(cli, folder / "ucdcr.txt")
        in_process, _ = timed(lambda: score_files(key_path, response_path, V801_METRICS), repeat)
        v801_lines = (folder / "v801.txt").read_text().splitlines()
        our_lines = (folder / "ucdcr.txt").read_text().splitlines()
    if perl_code or cli_code:
        sys.exit(f"v8.01 exited with {perl_code}, ucdcr score with {cli_code}")
    differing = compare_lines(v801_lines, our_lines)
    memory = "unknown (no /usr/bin/time)" if perl_gb is None else f"{perl_gb:.2f} GB"
    print(f"v8.01 scorer.pl all: {perl_seconds:9.2f} s, peak RSS {memory}")
    print(
        f"ucdcr score (CLI process, same 5 metrics): {cli_seconds:6.2f} s   -> v8.01 / ucdcr CLI = "
        f"{ratio_text(perl_seconds / cli_seconds)}"
    )
    print(
        f"ucdcr score_files in process (same 5 metrics): {in_process:.4f} s -> v8.01 / ucdcr = "
        f"{ratio_text(perl_seconds / in_process)}"
    )
    print(f"printed lines compared: {len(v801_lines) - 1}; differing: {len(differing)}")
    for v801_line, our_line in differing[:10]:
        print(f"  v8.01: {v801_line}\n  ucdcr: {our_line}")
    return {
        "size": n_mentions,
        "v801": perl_seconds,
        "v801_gb": perl_gb,
        "ucdcr_cli": cli_seconds,
        "ucdcr_files": in_process,
        "lines": len(v801_lines) - 1,
        "differing": len(differing),
    }


def ratio_text(ratio: float | None, complete: bool = True) -> str:
    """A speed ratio: one decimal below 10, ``*`` when the peer ran without some metrics."""
    if ratio is None:
        return "-"
    text = f"{ratio:,.1f}x" if ratio < 10 else f"{ratio:,.0f}x"
    return text if complete else text + "*"


def seconds_text(value: float | None, complete: bool = True) -> str:
    """A time for the summary table; ``*`` marks a run without CEAF."""
    return "-" if value is None else f"{value:.3f}{'' if complete else '*'}"


def print_summary(rows: list[dict[str, Any]], v801_rows: list[dict[str, Any]]) -> None:
    """One table of in-process times and agreement, one of v8.01 against ucdcr."""
    print(
        "\n== summary: seconds (best of --repeat for ucdcr, one run for peers; "
        "* = peer ran without its CEAF (scorch: and BLANC)) =="
    )
    print(
        f"{'mentions':>8} {'ucdcr':>7} {'ucdcr files':>11} {'scorch':>8} {'coval':>8} {'coval files':>11} "
        f"{'scorch/ucdcr':>12} {'coval/ucdcr':>11} {'coval files/ucdcr files':>23}  agreement"
    )
    for row in rows:
        coval = row.get("coval")
        coval_complete = row.get("coval_complete", True)
        ratios = [
            ratio_text(row["scorch"] / row["ucdcr"], row["scorch_complete"]),
            ratio_text(coval / row["ucdcr"] if coval else None, coval_complete),
            ratio_text(row["coval_files"] / row["ucdcr_files"] if coval else None, coval_complete),
        ]
        agree = f"scorch {row['scorch_agree']}"
        if coval:
            agree += f"; coval {row['coval_agree']}"
        print(
            f"{row['size']:>8,} {row['ucdcr']:>7.3f} {row['ucdcr_files']:>11.3f} "
            f"{seconds_text(row['scorch'], row['scorch_complete']):>8} "
            f"{seconds_text(coval, row.get('coval_complete', True)):>8} "
            f"{seconds_text(row.get('coval_files'), row.get('coval_complete', True)):>11} "
            f"{ratios[0]:>12} {ratios[1]:>11} {ratios[2]:>23}  {agree}"
        )
    if v801_rows:
        print(
            f"\n{'mentions':>8} {'v8.01':>9} {'v8.01 GB':>8} {'ucdcr CLI':>9} {'ucdcr in-proc':>13} "
            f"{'v8.01/CLI':>9} {'v8.01/in-proc':>13}  printed lines equal"
        )
        for row in v801_rows:
            print(
                f"{row['size']:>8,} {row['v801']:>9.2f} {row['v801_gb'] or float('nan'):>8.2f} "
                f"{row['ucdcr_cli']:>9.2f} "
                f"{row['ucdcr_files']:>13.4f} {ratio_text(row['v801'] / row['ucdcr_cli']):>9} "
                f"{ratio_text(row['v801'] / row['ucdcr_files']):>13}  {row['lines'] - row['differing']}/{row['lines']}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per ucdcr timing (best is printed)")
    parser.add_argument(
        "--scorch-large",
        "--scorch-ceaf-large",
        action="store_true",
        help="also run scorch's CEAF (10^8 chain pairs) and BLANC (13.7 GB) on 50,000 mentions",
    )
    parser.add_argument("--coval", type=Path, help="checkout of github.com/ns-moosavi/coval to compare with")
    parser.add_argument("--coval-ceaf-large", action="store_true", help="also run coval's CEAF on 50,000 mentions")
    parser.add_argument("--refscorer", type=Path, help="checkout of github.com/conll/reference-coreference-scorers")
    parser.add_argument(
        "--refscorer-sizes",
        default="1000,2000",
        help="meta-document sizes for v8.01 (comma-separated; 5000 takes tens of minutes and several GB)",
    )
    args = parser.parse_args()
    coval = import_coval(args.coval) if args.coval else None
    if args.refscorer and not (args.refscorer / "scorer.pl").is_file():
        sys.exit(f"--refscorer {args.refscorer}: no scorer.pl there")
    rows = [bench_case(5_000, 1_000, args, coval), bench_case(50_000, 10_000, args, coval)]
    v801_rows = []
    if args.refscorer:
        v801_rows = [
            bench_refscorer(args.refscorer, int(size), args.repeat) for size in args.refscorer_sizes.split(",")
        ]
    print_summary(rows, v801_rows)
    print(
        "\nTargets (docs/performance.md#targets): 5,000-mention meta document: >= 1000x faster than v8.01, "
        ">= 10x faster than coval;\n50,000-mention meta document < 2 s (all metrics); "
        "every printed digit equal to v8.01."
    )
    if not any(row["size"] == 5_000 for row in v801_rows):
        print(
            "v8.01 on 5,000 mentions not run here (measured figures: docs/performance.md#scorer; "
            "--refscorer-sizes 5000 runs it)."
        )


if __name__ == "__main__":
    main()
