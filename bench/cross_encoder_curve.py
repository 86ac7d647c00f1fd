"""The cross-encoder's learning curve on one dataset: val CoNLL F1 as a function of the training pairs it reads.

Each point is the ``cross-encoder`` system with another training budget (``PairEncoderConfig.epochs`` x
``pairs_per_epoch``; everything else the default), run through the public API exactly as ``ucdcr benchmark`` runs
it: trained on the dataset's train split (or read from the model cache), tuned on val, scored on test under the
chosen protocol. Prints, per point, the training time and the val score the tuning reached (with ``--final``, a
final run, the test CoNLL F1 of every kind too: development compares points on val alone, bench/final_run.py), then
the whole run's wall time. The default budget (``PairEncoderConfig``'s, 1 x 20,000) is the last point, so with a
warm ``--cache-dir`` it costs scoring only.

    python bench/cross_encoder_curve.py [--data-dir /tmp/final21b] [--dataset ecbplus] [--cache-dir DIR]
        [--protocol standard] [--points 1x10000,2x20000@5e-5,1x20000] [--encoder all-MiniLM-L6-v2|FOLDER]
        [--candidates 5,15] [--ensemble] [--final]

A point is ``EPOCHSxPAIRS`` (at ``PairEncoderConfig``'s default learning rate) or ``EPOCHSxPAIRS@LEARNING_RATE``,
so one run can also compare learning rates at a budget.

``--encoder`` takes the folder of any saved Hugging Face encoder (``PairEncoderConfig.encoder``): the same budget
with a larger encoder measures what the encoder's size is worth. ``--candidates NEIGHBOURS,LIMIT`` sets the
candidates' ``CrossEncoderOptions.neighbours`` and ``limit`` (for training and scoring; default the system's).
``--ensemble`` also runs the ensemble of ``pairwise`` and each point's model (one benchmark call, so it reuses the
cross-encoder's scores).
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ucdcr
from final_run import add_final_flag, notice
from ucdcr.embed import MODEL_NAME
from ucdcr.systems.parts.pair_encoder import PairEncoderConfig
from ucdcr.systems.reference.cross_encoder import CrossEncoder, CrossEncoderOptions
from ucdcr.systems.reference.ensemble import Ensemble

VAL = re.compile(r"val CoNLL F1 ([\d.]+)\)")  # the first: the ensemble's own, before its parts'
TRAINED = re.compile(r"(trained in [\d.]+ min|read from the model cache)")


@dataclass(frozen=True)
class Point:
    """One point of the curve: ``EPOCHSxPAIRS[@LEARNING_RATE]``."""

    epochs: int
    pairs_per_epoch: int
    learning_rate: float

    @classmethod
    def parse(cls, text: str) -> Point:
        budget, _, rate = text.partition("@")
        epochs, pairs = (int(part) for part in budget.split("x"))
        return cls(epochs, pairs, float(rate) if rate else PairEncoderConfig.learning_rate)

    def __str__(self) -> str:
        default = self.learning_rate == PairEncoderConfig.learning_rate
        return f"{self.epochs} x {self.pairs_per_epoch:,} pairs" + ("" if default else f" at lr {self.learning_rate:g}")


class Budget:
    """A factory of the cross-encoder (or the ensemble around it) trained with one point's budget and learning rate
    on ``encoder`` (its configuration is part of the system's identity, so each point has its own stored
    results and model)."""

    def __init__(
        self,
        point: Point,
        encoder: str,
        system: type[CrossEncoder | Ensemble],
        candidates: tuple[int, int] = (CrossEncoderOptions.neighbours, CrossEncoderOptions.limit),
    ) -> None:
        self.point, self.encoder, self.system, self.candidates = point, encoder, system, candidates

    def __call__(self) -> CrossEncoder | Ensemble:
        config = PairEncoderConfig(
            encoder=self.encoder,
            epochs=self.point.epochs,
            pairs_per_epoch=self.point.pairs_per_epoch,
            learning_rate=self.point.learning_rate,
        )
        neighbours, limit = self.candidates
        return self.system(CrossEncoderOptions(encoder=config, neighbours=neighbours, limit=limit))


def run_line(point: Point, run: Any, load: str, final: bool) -> str:
    """One run's line: the training, the val CoNLL F1 of the tuning and, in a final run only, the test CoNLL F1 of
    every kind (``run``: a :class:`~ucdcr.systems.framework.store.StoredRun`)."""
    val = VAL.search(run.model)
    trained = TRAINED.search(run.model)
    line = f"{point}, {run.system}: {trained.group(1) if trained else '?'}; val CoNLL F1 {val.group(1) if val else '?'}"
    if final:
        line += "; test CoNLL F1 " + ", ".join(f"{mean['type']} {mean['scores']['F1_CONLL']:.2f}" for mean in run.means)
    return f"{line} (load before: {load})"


def parse_candidates(text: str) -> tuple[int, int]:
    """``NEIGHBOURS,LIMIT`` (``--candidates``)."""
    neighbours, limit = (int(part) for part in text.split(","))
    return neighbours, limit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/final21b"))
    parser.add_argument("--dataset", default="ecbplus")
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--protocol", default="standard")
    parser.add_argument("--points", default="1x10000,2x20000@5e-5,1x20000", help="EPOCHSxPAIRS[@RATE], comma-separated")
    parser.add_argument("--encoder", default=MODEL_NAME, help="the bundled MiniLM or a saved encoder's folder")
    parser.add_argument(
        "--candidates",
        type=parse_candidates,
        default=(CrossEncoderOptions.neighbours, CrossEncoderOptions.limit),
        metavar="NEIGHBOURS,LIMIT",
        help="the candidates' neighbours and lemma-rule limit, for training and scoring (default: the system's)",
    )
    parser.add_argument("--ensemble", action="store_true", help="also the ensemble of pairwise and each point's model")
    add_final_flag(parser)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    # the per-30-s lines: not needed here
    logging.getLogger("ucdcr.systems.parts.pair_encoder").setLevel(logging.WARNING)
    cache = args.cache_dir or Path(tempfile.mkdtemp(prefix="ucdcr-curve-"))
    print(notice(args.final), flush=True)
    print(
        f"cache dir {cache}; machine: {os.cpu_count()} CPUs; {args.dataset}, {args.protocol} protocol; encoder "
        f"{args.encoder}; candidates (neighbours, limit) {args.candidates}",
        flush=True,
    )
    started = time.perf_counter()
    for point in [Point.parse(text) for text in args.points.split(",")]:
        load = " ".join(f"{value:.2f}" for value in os.getloadavg())
        kinds: list[type[CrossEncoder | Ensemble]] = [CrossEncoder, Ensemble] if args.ensemble else [CrossEncoder]
        result = ucdcr.benchmark(
            systems=[Budget(point, args.encoder, kind, args.candidates) for kind in kinds],
            datasets=[args.dataset],
            data_dir=args.data_dir,
            protocol=args.protocol,
            cache_dir=cache,
            test=args.final,  # test is predicted and scored in a final run only
        )
        for run in (item for item in result.runs if item.dataset == args.dataset):
            print(run_line(point, run, load, args.final), flush=True)
    print(f"whole run {(time.perf_counter() - started) / 60:.1f} min wall", flush=True)


if __name__ == "__main__":
    main()
