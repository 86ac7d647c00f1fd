"""Benchmark: where a build's time goes, and whether -j 2 pays (ECB+ by default).

Usage: python bench/profile_build.py [--dataset ecbplus] [--raw-dir ../shared/raw] [--repeat 3] [--no-profile]

Prints, with the machine's load average:
1. the profile of one -j 1 build (cProfile, cumulative seconds and share of the build per stage: reading,
   detokenizing, spaCy tokenizer, spaCy full pipeline, alignment + heads + contexts, packing/spilling, validation,
   writing) -- cProfile slows Python code more than spaCy's compiled code, so the shares are indicative;
2. the floor: spaCy alone on the same sentences (tokenizer on every sentence, full pipeline on those that hold a
   mention), one process, timed without the profiler;
3. wall time of -j 1 and -j 2 builds, alternated, ``--repeat`` times each, min and median, and the ratio
   (-j 1 / -j 2) of the medians and of the minima, all measured in this run.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

STAGES = (
    ("reading (dataset reader)", "ucdcr/datasets/", "read"),  # a list reader's call, plus a stream's documents:
    ("", "ucdcr/records.py", "parts"),
    ("detokenizing", "ucdcr/pipeline/detokenize.py", "rebuild_sentence"),
    ("spaCy tokenizer", "ucdcr/pipeline/nlp.py", "tokenize"),
    ("spaCy full pipeline", "ucdcr/pipeline/nlp.py", "parse"),
    ("alignment, heads, contexts", "ucdcr/pipeline/document.py", "_enrich_document"),
    ("packing results", "ucdcr/pipeline/spill.py", "pack"),
    ("validation", "ucdcr/pipeline/validate.py", "check_records"),
    ("writing", "ucdcr/pipeline/write.py", "write_dataset"),
)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def build_seconds(dataset: str, raw: Path, jobs: int) -> float:
    from ucdcr.pipeline.build import build_dataset

    with tempfile.TemporaryDirectory() as data_dir:
        started = time.perf_counter()
        build_dataset(dataset, raw_dir=raw, data_dir=data_dir, jobs=jobs, progress=False)
        return time.perf_counter() - started


def profile(dataset: str, raw: Path) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    total = build_seconds(dataset, raw, 1)
    profiler.disable()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    print(f"\n1. profile of one -j 1 build under cProfile: {total:.1f} s (load {load()})")
    print(f"{'stage':32} {'seconds':>8} {'share':>6}")
    shares: dict[str, float] = {}
    row = ""
    for label, file_part, function in STAGES:  # an entry without a label adds to the row above
        seconds = max(
            (
                cumulative
                for (file, _, name), (_, _, _, cumulative, _) in stats.items()
                if name == function and file_part in file
            ),
            default=0.0,
        )
        row = label or row
        shares[row] = shares.get(row, 0.0) + seconds
    for label, seconds in shares.items():
        print(f"{label:32} {seconds:8.1f} {100 * seconds / total:5.0f}%")


def floor(dataset: str, raw: Path) -> float:
    """spaCy alone on the build's sentences: seconds, one process."""
    from ucdcr.pipeline import nlp
    from ucdcr.pipeline.build import DOCUMENTS_PER_BATCH
    from ucdcr.pipeline.detokenize import rebuild_sentence
    from ucdcr.registry import get

    spec = get(dataset)
    corpus = spec.read(raw / spec.raw_folder)
    with_mentions = {(m.doc_key, t) for m in corpus.mentions for t in m.token_ids}
    tokenized: list[str] = []
    parsed: list[str] = []
    for document in corpus.documents:
        sentences: dict[int, list] = {}
        for token in document.tokens:
            sentences.setdefault(token.sent_id, []).append(token)
        for tokens in sentences.values():
            text, _ = rebuild_sentence(tokens)
            tokenized.append(text)
            if any((document.doc_key, t.token_id) in with_mentions for t in tokens):
                parsed.append(text)
    nlp.load_nlp()
    started = time.perf_counter()
    for text in tokenized:
        nlp.tokenize(text)
    for start in range(0, len(parsed), DOCUMENTS_PER_BATCH * 16):
        nlp.parse(parsed[start : start + DOCUMENTS_PER_BATCH * 16])
    seconds = time.perf_counter() - started
    print(
        f"\n2. floor: spaCy alone, one process: {seconds:.1f} s (tokenizer on {len(tokenized)} sentences, full "
        f"pipeline on {len(parsed)}) (load {load()})"
    )
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="ecbplus")
    parser.add_argument("--raw-dir", type=Path, default=REPO.parent / "shared" / "raw")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-profile", action="store_true")
    args = parser.parse_args()
    print(f"{args.dataset}, cores: {os.cpu_count()}, load average at start: {load()}")
    if not args.no_profile:
        profile(args.dataset, args.raw_dir)
        floor_seconds = floor(args.dataset, args.raw_dir)
    times: dict[int, list[float]] = {1: [], 2: []}
    print("\n3. builds (wall seconds, spaCy model loading included):")
    for run in range(args.repeat):
        for jobs in (1, 2):
            seconds = build_seconds(args.dataset, args.raw_dir, jobs)
            times[jobs].append(seconds)
            print(f"run {run + 1}, -j {jobs}: {seconds:.1f} s (load {load()})")
    for jobs, values in times.items():
        print(f"-j {jobs}: min {min(values):.1f} s, median {statistics.median(values):.1f} s")
    print(
        f"speed-up -j 2 over -j 1: {statistics.median(times[1]) / statistics.median(times[2]):.2f}x (medians), "
        f"{min(times[1]) / min(times[2]):.2f}x (minima)"
    )
    if not args.no_profile:
        print(f"-j 1 median / spaCy-alone floor: {statistics.median(times[1]) / floor_seconds:.2f}x")


if __name__ == "__main__":
    main()
