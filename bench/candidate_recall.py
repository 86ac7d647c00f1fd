"""The cross-encoder's candidates on each dataset's val split: how many pairs, and the shares of val's gold links
they keep and reach through kept links, with the rules (``CrossEncoderOptions(candidates="rules")``) and with pairs
ranked by pairwise's P added (``candidates="pairwise"``, the default, with its ``top`` and ``per_row``).

Nothing is trained: a probe system finds both candidate sets as the cross-encoder does in ``fit`` (the training
split's coreferent lemma pairs, MiniLM neighbours, a ``pairwise`` system fitted on the same splits) and describes
them; it runs through ``ucdcr.benchmark(..., test=False)``, so each dataset is fitted on the training split the
benchmark would use (a dataset without one on the largest training split; its row says which) and the test split
is never read. Prints one line per dataset and the ratio of the pairs.

    python bench/candidate_recall.py --data-dir DIR [--datasets ecbplus,np4e,meantime,cd2cr,cerec]
        [--protocol standard] [--top 8] [--per-row 13.5]
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable, Hashable, Mapping, Sequence

import ucdcr
from ucdcr.systems import SplitData
from ucdcr.systems.parts.candidates import Candidates, candidate_pairs, coreferent_lemma_pairs, link_recall
from ucdcr.systems.reference.cross_encoder import CrossEncoder, CrossEncoderOptions
from ucdcr.systems.reference.pairwise import Pairwise


def probe(top: int, per_row: float) -> Callable[[], CrossEncoder]:
    class CandidateProbe(CrossEncoder):
        """Finds the cross-encoder's candidates on val both ways and describes them; predicts singletons."""

        name = "candidate-probe"

        def __init__(self) -> None:
            super().__init__(CrossEncoderOptions(candidates="pairwise", top=top, per_row=per_row))
            self.found = ""

        def fit(self, train: Sequence[SplitData], val: SplitData) -> None:
            self.lemma_pairs = coreferent_lemma_pairs(train)
            options = self.options
            rules = candidate_pairs(val, self.lemma_pairs, options.neighbours, options.limit)
            self.ranker = Pairwise()
            self.ranker.seed = self.seed
            self.ranker.fit(train, val)
            ranked = self._candidates(val)
            fitted = "+".join(f"{data.dataset} {data.split}" for data in train)
            self.found = f"{describe(val, rules)} | {describe(val, ranked)} | {ratio(ranked, rules):.2f}x | {fitted}"

        def predict(self, test: SplitData) -> Mapping[str, Hashable]:
            return {mention: mention for mention in test.column("mention_id")}

        def describe(self) -> str:
            return self.found

    return CandidateProbe


def describe(val: SplitData, candidates: list[Candidates]) -> str:
    recall = link_recall(val, candidates)
    pairs = sum(len(group) for group in candidates)
    return f"{pairs:,} pairs, kept {recall.share(recall.kept):.1%}, reached {recall.share(recall.reachable):.1%}"


def ratio(ranked: list[Candidates], rules: list[Candidates]) -> float:
    return sum(len(group) for group in ranked) / max(1, sum(len(group) for group in rules))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--datasets", default="ecbplus,np4e,meantime,cd2cr,cerec")
    parser.add_argument("--protocol", default="standard")
    parser.add_argument("--top", type=int, default=CrossEncoderOptions.top)
    parser.add_argument("--per-row", type=float, default=CrossEncoderOptions.per_row)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        result = ucdcr.benchmark(
            [probe(args.top, args.per_row)],
            datasets=args.datasets.split(","),
            data_dir=args.data_dir,
            protocol=args.protocol,
            cache_dir=cache,
            test=False,
        )
        print(f"val, {args.protocol} protocol; ranked: top {args.top}, {args.per_row:g} pairs per mention")
        print("dataset | rules | rules + ranked by pairwise | pairs ranked / rules | fitted on")
        for run in result.runs:
            print(f"{run.dataset} | {run.model}")


if __name__ == "__main__":
    main()
