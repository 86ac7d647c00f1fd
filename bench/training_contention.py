"""The cross-encoder's training and scoring throughput alone and beside one CPU-bound process (a busy loop), the
case of a shared lab server: the same 2,000 training pairs and 2,000 scored pairs each time.

Each measurement is a fresh subprocess (torch's OpenMP runtime reads its settings when torch is imported), run
alone and then with a busy loop started beside it; each case is repeated (``--repeat``, default 2) and the best
of the repeats is kept. Printed: pairs/s of training and of scoring per case, and the ratio of the busy figure to
the idle one (the target is at least 0.40: a fair share of two cores is about 0.5). ``--env NAME=VALUE`` runs
a second variant with that variable set (e.g. ``OMP_WAIT_POLICY=ACTIVE``, torch's default spin-waiting) beside the
default, to compare in the same run.

The pairs are synthetic token ids of ECB+-like length (two sides of 32-65 subwords with the markers, the
lengths the default ``window``/``side_tokens`` give), so the figure is the encoder's arithmetic, not data loading.

    python bench/training_contention.py [--pairs 2000] [--repeat 2] [--env OMP_WAIT_POLICY=ACTIVE]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import subprocess
import sys
import time


def worker(pairs: int) -> dict[str, float]:
    """Train one epoch on ``pairs`` synthetic pairs and score ``pairs`` pairs; pairs/s of each."""
    import numpy as np

    from ucdcr.systems.parts.pair_encoder import (
        MarkedMention,
        PairEncoderConfig,
        TrainingExamples,
        load_encoder,
        score_pairs,
        train_model,
    )

    config = PairEncoderConfig(epochs=1, pairs_per_epoch=pairs)
    encoder = load_encoder(config)
    rng = np.random.default_rng(2026)
    vocabulary = len(encoder.tokenizer) - 2

    def side() -> MarkedMention:
        length = int(rng.integers(32, 66))
        ids = [int(i) for i in rng.integers(1000, vocabulary, size=length)]
        opening = int(rng.integers(1, length - 4))
        ids[opening], ids[opening + 2] = encoder.markers
        return MarkedMention(tuple(ids), opening, opening + 2)

    examples = TrainingExamples([(side(), side()) for _ in range(pairs)], rng.integers(0, 2, size=pairs))
    started = time.perf_counter()
    trained = train_model(encoder, examples, config, None, "bench", progress=lambda message: None)
    training = time.perf_counter() - started
    started = time.perf_counter()
    score_pairs(trained, examples.pairs)
    scoring = time.perf_counter() - started
    return {"train": pairs / training, "score": pairs / scoring}


def busy() -> None:
    while True:
        pass


def measure(pairs: int, env: dict[str, str], beside_busy: bool) -> dict[str, float]:
    loop = multiprocessing.Process(target=busy, daemon=True) if beside_busy else None
    if loop:
        loop.start()
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--worker", str(pairs)],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        if loop:
            loop.terminate()
            loop.join()
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE: a variant with this variable set")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker)))
        return
    variants = {"default": {}} | {item: dict([item.split("=", 1)]) for item in args.env}
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; {args.pairs} pairs")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| variant | case | train pairs/s | score pairs/s |")
    print("| --- | --- | --- | --- |")
    for name, env in variants.items():
        figures = {}
        for case, beside_busy in (("idle", False), ("beside a busy loop", True)):
            runs = [measure(args.pairs, env, beside_busy) for _ in range(args.repeat)]
            figures[case] = {kind: max(run[kind] for run in runs) for kind in ("train", "score")}
            print(f"| {name} | {case} | {figures[case]['train']:.1f} | {figures[case]['score']:.1f} |", flush=True)
        ratio = {kind: figures["beside a busy loop"][kind] / figures["idle"][kind] for kind in ("train", "score")}
        print(f"| {name} | busy / idle | {ratio['train']:.2f} | {ratio['score']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
