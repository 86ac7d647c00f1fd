"""What a cross-encoder training step costs on this machine, by attention implementation and attention dropout: the
same synthetic pairs trained for one epoch (and scored) in each setting.

Settings: ``sdpa`` (PyTorch's fused scaled-dot-product attention, the encoder's default and ucdcr's before pair
encoder version 2) and ``eager`` (matrix products and a softmax: version 2's choice on a CPU), each with the
encoder's own attention-probability dropout (MiniLM 0.1) and with none (``attention_dropout=0``). On a CPU, drawing
the dropout masks of the attention probabilities (batch x heads x length x length Bernoulli draws) and the fused
attention's backward pass are what the settings change.

Then one AdamW step over the encoder's trainable parameters, as the training loop takes it (fused, one kernel) and as
PyTorch's default on a CPU takes it (a loop over the tensors) and with ``foreach``: min and median of 20 steps each.

Each measurement is a fresh subprocess (torch's OpenMP runtime reads its settings when torch is imported); the
settings take turns, ``--repeat`` times (default 3), and the min and median of each are printed with the ratio of
each setting's min time to the first setting's (``sdpa``, dropout 0.1). The pairs are two random mentions of a built
dataset's train split (``--data-dir``, ``--dataset``: default ECB+), each marked in its sentence as the cross-encoder
marks it (the default ``window`` and ``side_tokens``): the lengths of real inputs, with random labels, so the figure
is the encoder's arithmetic, not data loading.

    python bench/training_step.py [--data-dir /tmp/data] [--dataset ecbplus] [--pairs 800] [--repeat 3]
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
from pathlib import Path
from typing import Any

SETTINGS = {
    "sdpa, attention dropout 0.1": ("sdpa", None),
    "eager, attention dropout 0.1": ("eager", None),
    "eager, attention dropout 0": ("eager", 0.0),
}


def marked_mentions(folder: str, encoder: Any, config: Any) -> list[Any]:
    """Every train mention of the dataset folder marked in its sentence, as the cross-encoder's inputs."""
    from ucdcr.systems.framework.adapter import load_split
    from ucdcr.systems.parts.pair_encoder import mark
    from ucdcr.systems.parts.vectors import mention_input

    table, _ = load_split(Path(folder), "train")
    names = ("mention_context", "mention_sentence_start_end", "tokens_number_context")
    columns = [table.column(name).to_pylist() for name in names]
    items = [mention_input(*row, config.window) for row in zip(*columns, strict=True)]
    markers = encoder.markers
    return [mark(encoder.tokenizer, markers, i.words, i.start, i.end, config.side_tokens) for i in items]


def worker(folder: str, pairs: int, attention: str, dropout: float | None) -> dict[str, float]:
    """Train one epoch on ``pairs`` pairs of the folder's train mentions and score them, in one setting: seconds of
    each."""
    import numpy as np

    from ucdcr.systems.parts import pair_encoder
    from ucdcr.systems.parts.pair_encoder import PairEncoderConfig, TrainingExamples

    pair_encoder.attention_of = lambda config: attention  # the setting measured, whatever the device's choice
    config = PairEncoderConfig(epochs=1, pairs_per_epoch=pairs, attention_dropout=dropout, device="cpu")
    encoder = pair_encoder.load_encoder(config)
    sides = marked_mentions(folder, encoder, config)
    rng = np.random.default_rng(2026)
    chosen = rng.integers(0, len(sides), size=(pairs, 2)).tolist()
    examples = TrainingExamples([(sides[a], sides[b]) for a, b in chosen], rng.integers(0, 2, size=pairs))
    started = time.perf_counter()
    trained = pair_encoder.train_model(encoder, examples, config, None, "bench", progress=lambda message: None)
    training = time.perf_counter() - started
    started = time.perf_counter()
    pair_encoder.score_pairs(trained, examples.pairs)
    return {"train": training, "score": time.perf_counter() - started}


def optimizer_steps(repeat: int = 20) -> dict[str, list[float]]:
    """Seconds of one AdamW step over the pair model's trainable parameters, per implementation."""
    import torch

    from ucdcr.systems.parts.pair_encoder import PairEncoderConfig, load_encoder, pair_model

    config = PairEncoderConfig(device="cpu")
    torch.set_num_threads(config.threads)
    model = pair_model(load_encoder(config))
    model.encoder.get_input_embeddings().weight.requires_grad_(False)
    parameters = [parameter for parameter in model.parameters() if parameter.requires_grad]
    for parameter in parameters:
        parameter.grad = torch.randn_like(parameter) * 1e-3
    times: dict[str, list[float]] = {"fused": [], "per tensor (the CPU default)": [], "foreach": []}
    for _ in range(repeat):
        for name in times:
            optimizer = torch.optim.AdamW(
                parameters, lr=1e-5, fused=name == "fused" or None, foreach=name == "foreach" or None
            )
            optimizer.step()  # the first step creates the moments
            started = time.perf_counter()
            optimizer.step()
            times[name].append(time.perf_counter() - started)
    return times


def measure(folder: Path, pairs: int, setting: str) -> dict[str, float]:
    attention, dropout = SETTINGS[setting]
    done = subprocess.run(
        [sys.executable, __file__, "--worker", json.dumps([str(folder), pairs, attention, dropout])],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/data"))
    parser.add_argument("--dataset", default="ecbplus")
    parser.add_argument("--pairs", type=int, default=800)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--optimizer-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(*json.loads(args.worker))))
        return
    if args.optimizer_worker:
        print(json.dumps(optimizer_steps()))
        return
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs")
    print(f"{args.pairs} pairs of {args.dataset} train mentions per run")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    runs: dict[str, list[dict[str, float]]] = {setting: [] for setting in SETTINGS}
    for _ in range(args.repeat):
        for setting in SETTINGS:
            runs[setting].append(measure(args.data_dir / args.dataset, args.pairs, setting))
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
    done = subprocess.run([sys.executable, __file__, "--optimizer-worker"], capture_output=True, text=True, check=True)
    steps = json.loads(done.stdout.strip().splitlines()[-1])
    print("\n| AdamW step | min ms | median ms |\n| --- | --- | --- |")
    for name, seconds in steps.items():
        print(f"| {name} | {min(seconds) * 1e3:.1f} | {statistics.median(seconds) * 1e3:.1f} |")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
