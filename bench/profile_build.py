"""Benchmark: where a build's time goes, how far it is from spaCy alone, and whether -j 2 pays (ECB+ by default).

Usage: python bench/profile_build.py [--dataset ecbplus] [--raw-dir ../shared/raw] [--repeat 3] [--no-profile]
       [--no-jobs]

Prints, with the machine's load average:
1. the profile of one -j 1 build (cProfile, cumulative seconds and share of the build per stage: reading,
   detokenizing, spaCy tokenizer, spaCy full pipeline, alignment + heads + contexts, packing/spilling, validation,
   writing) -- cProfile slows Python code more than spaCy's compiled code, so the shares are indicative;
2. the floor against the build, alternated in this process ``--repeat`` times after one unmeasured run of each: the
   floor is spaCy alone on the same sentences (tokenizer on every sentence, full pipeline on those that hold a
   mention), then a -j 1 build timed without the profiler, its wall seconds split by stage with timers around the
   stage functions (spaCy tokenizer, spaCy full pipeline, detokenizing, reading, writing; "other" is the rest); per
   pair the ratio build / floor, then the minimum and median of the ratios (both runs of a pair see about the same
   load);
3. wall time of -j 1 and -j 2 builds, alternated, ``--repeat`` times each, min and median, and the ratio
   (-j 1 / -j 2) of the medians and of the minima, all measured in this run (``--no-jobs``: skipped).

Runs the tree on PYTHONPATH (``PYTHONPATH=/tmp/before/src python bench/profile_build.py`` measures another checkout).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent

STAGES = (
    ("reading (dataset reader)", "ucdcr/datasets/", "read"),  # a list reader's call, plus a stream's documents:
    ("", "ucdcr/records.py", "parts"),
    ("detokenizing", "ucdcr/pipeline/detokenize.py", "rebuild_sentence"),
    ("", "ucdcr/pipeline/detokenize.py", "sentence_text"),  # (the text alone, of a sentence without mentions)
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


def floor_sentences(dataset: str, raw: Path) -> tuple[list[str], list[str]]:
    """The build's sentence texts: all of them (tokenized) and those holding a mention (fully parsed)."""
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
    return tokenized, parsed


def floor(tokenized: list[str], parsed: list[str], tokenize: Callable[[str], Any], parse: Callable[..., Any]) -> float:
    """spaCy alone on the build's sentences (``ucdcr.pipeline.nlp``'s tokenize and parse): seconds, one process."""
    from ucdcr.pipeline.build import DOCUMENTS_PER_BATCH

    started = time.perf_counter()
    for text in tokenized:
        tokenize(text)
    for start in range(0, len(parsed), DOCUMENTS_PER_BATCH * 16):
        parse(parsed[start : start + DOCUMENTS_PER_BATCH * 16])
    return time.perf_counter() - started


class StageTimers:
    """Wall seconds inside the build's stage functions, by timers put around them (no profiler): each function is
    replaced, where the build looks it up, by a timed call of the original."""

    STAGES = (  # label, module, attribute
        ("spaCy tokenizer", "ucdcr.pipeline.nlp", "tokenize"),
        ("spaCy full pipeline", "ucdcr.pipeline.nlp", "parse"),
        ("detokenizing", "ucdcr.pipeline.document", "rebuild_sentence"),
        ("detokenizing", "ucdcr.pipeline.document", "sentence_text"),
        ("writing", "ucdcr.pipeline.build", "write_dataset"),
    )

    def __init__(self) -> None:
        import importlib

        from ucdcr.records import SourceCorpus

        self.seconds: dict[str, float] = defaultdict(float)
        for label, module_name, attribute in self.STAGES:
            module = importlib.import_module(module_name)
            if hasattr(module, attribute):  # (an older tree may lack one)
                setattr(module, attribute, self._timed(label, getattr(module, attribute)))
        parts = SourceCorpus.parts
        seconds = self.seconds

        def timed_parts(corpus: Any) -> Iterator[Any]:  # a streaming reader reads as the build asks for documents
            items = parts(corpus)
            while True:
                started = time.perf_counter()
                item = next(items, None)
                seconds["reading (dataset reader)"] += time.perf_counter() - started
                if item is None:
                    return
                yield item

        SourceCorpus.parts = timed_parts  # type: ignore[method-assign]

    def _timed(self, label: str, function: Callable[..., Any]) -> Callable[..., Any]:
        seconds = self.seconds

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                seconds[label] += time.perf_counter() - started

        return timed

    def reset(self) -> None:
        self.seconds.clear()


def against_floor(dataset: str, raw: Path, repeat: int) -> None:
    """Floor and -j 1 build alternated ``repeat`` times; per pair the ratio and the build's timed stages."""
    from ucdcr.pipeline import nlp

    tokenized, parsed = floor_sentences(dataset, raw)
    spacy_alone = partial(floor, tokenized, parsed, nlp.tokenize, nlp.parse)  # not the timed functions
    nlp.load_nlp()
    print(
        f"\n2. floor (spaCy alone: tokenizer on {len(tokenized)} sentences, full pipeline on {len(parsed)}) and -j 1 "
        "build, alternated; the build's wall seconds by stage (timers, no profiler):"
    )
    spacy_alone()  # warm-ups: the model loaded, the tokenizer's cache as the build will find it, and a build (the
    build_seconds(dataset, raw, 1)  # first of a process pays for imports and pyarrow's first allocations)
    timers = StageTimers()
    ratios: list[float] = []
    floors: list[float] = []
    builds: list[float] = []
    for run in range(repeat):
        floor_seconds = spacy_alone()
        timers.reset()
        total = build_seconds(dataset, raw, 1)
        ratios.append(total / floor_seconds)
        floors.append(floor_seconds)
        builds.append(total)
        stages = dict(timers.seconds)
        stages["other"] = total - sum(stages.values())
        split = ", ".join(f"{label} {seconds:.1f}" for label, seconds in stages.items())
        print(
            f"run {run + 1}: floor {floor_seconds:.1f} s, build {total:.1f} s = {total / floor_seconds:.2f}x the floor "
            f"({split}) (load {load()})"
        )
    print(
        f"floor: min {min(floors):.1f} s, median {statistics.median(floors):.1f} s; -j 1 build: "
        f"min {min(builds):.1f} s, median {statistics.median(builds):.1f} s; build / floor per pair: "
        f"min {min(ratios):.2f}x, median {statistics.median(ratios):.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="ecbplus")
    parser.add_argument("--raw-dir", type=Path, default=REPO.parent / "shared" / "raw")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument("--no-jobs", action="store_true", help="skip the -j 1 against -j 2 builds")
    args = parser.parse_args()
    import ucdcr

    print(
        f"{args.dataset}, cores: {os.cpu_count()}, tree: {Path(ucdcr.__file__).parents[1]}, load average at start: "
        f"{load()}"
    )
    if not args.no_profile:
        profile(args.dataset, args.raw_dir)
    against_floor(args.dataset, args.raw_dir, args.repeat)
    if args.no_jobs:
        return
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


if __name__ == "__main__":
    main()
