"""What a cross-encoder training step costs on this machine, by attention implementation and attention dropout: the
same synthetic pairs trained for one epoch (and scored) in each setting.

Settings: ``sdpa`` (PyTorch's fused scaled-dot-product attention, the encoder's default and ucdcr's before pair
encoder version 2) and ``eager`` (matrix products and a softmax: version 2's choice on a CPU), each with the
encoder's own attention-probability dropout (MiniLM 0.1) and with none (``attention_dropout=0``). On a CPU, drawing
the dropout masks of the attention probabilities (batch x heads x length x length Bernoulli draws) and the fused
attention's backward pass are what the settings change.

Each measurement is a fresh subprocess (torch's OpenMP runtime reads its settings when torch is imported); the
settings take turns, ``--repeat`` times (default 3), and the min and median of each are printed with the ratio of
each setting's min time to the first setting's (``sdpa``, dropout 0.1). The pairs are synthetic token ids of ECB+-like
length (two sides of 32-65 subwords with the markers, the lengths the default ``window``/``side_tokens`` give), so the
figure is the encoder's arithmetic, not data loading.

    python bench/training_step.py [--pairs 800] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

SETTINGS = {
    "sdpa, attention dropout 0.1": ("sdpa", None),
    "eager, attention dropout 0.1": ("eager", None),
    "eager, attention dropout 0": ("eager", 0.0),
}


def worker(pairs: int, attention: str, dropout: float | None) -> dict[str, float]:
    """Train one epoch on ``pairs`` synthetic pairs and score them, in one setting: seconds of each."""
    import numpy as np

    from ucdcr.systems.parts import pair_encoder
    from ucdcr.systems.parts.pair_encoder import MarkedMention, PairEncoderConfig, TrainingExamples

    pair_encoder.attention_of = lambda config: attention  # the setting measured, whatever the device's choice
    config = PairEncoderConfig(epochs=1, pairs_per_epoch=pairs, attention_dropout=dropout, device="cpu")
    encoder = pair_encoder.load_encoder(config)
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
    trained = pair_encoder.train_model(encoder, examples, config, None, "bench", progress=lambda message: None)
    training = time.perf_counter() - started
    started = time.perf_counter()
    pair_encoder.score_pairs(trained, examples.pairs)
    return {"train": training, "score": time.perf_counter() - started}


def measure(pairs: int, setting: str) -> dict[str, float]:
    attention, dropout = SETTINGS[setting]
    done = subprocess.run(
        [sys.executable, __file__, "--worker", json.dumps([pairs, attention, dropout])],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=800)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(*json.loads(args.worker))))
        return
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; {args.pairs} pairs per run")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    runs: dict[str, list[dict[str, float]]] = {setting: [] for setting in SETTINGS}
    for _ in range(args.repeat):
        for setting in SETTINGS:
            runs[setting].append(measure(args.pairs, setting))
    first = min(run["train"] for run in runs[next(iter(SETTINGS))])
    print("| setting | train pairs/s, min time | median | score pairs/s, min time | training time vs the first |")
    print("| --- | --- | --- | --- | --- |")
    for setting, measured in runs.items():
        train = [run["train"] for run in measured]
        score = min(run["score"] for run in measured)
        print(
            f"| {setting} | {args.pairs / min(train):.1f} | {args.pairs / statistics.median(train):.1f} | "
            f"{args.pairs / score:.1f} | {min(train) / first:.2f} |"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
