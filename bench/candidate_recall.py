"""The cross-encoder's candidates on each dataset's val split: how many pairs, and the shares of val's gold links
they keep and reach through kept links, for each source of ``CrossEncoderOptions.candidates``: ``rules`` (the lemma
and neighbour rules: the training pairs), ``pairwise`` (version 4's: the rules' pairs and pairs ranked by pairwise's
P) and ``ranked`` (the default: same-document and unit partners and the split's best pairs by pairwise's P blended
with the cosine of a mention space, by default a fine-tuned mention encoder), with the given ``top``, ``per_row``,
``same_document``, ``latent_weight`` and ``space``.

Nothing is trained but what the candidates need: a probe system finds every candidate set as the cross-encoder does
in ``fit`` (the training split's coreferent lemma pairs, MiniLM neighbours, a ``pairwise`` system fitted on the same
splits, the mention space) and describes them; it runs through ``ucdcr.benchmark(..., test=False)``, so each
dataset is fitted on the training split the benchmark would use (a dataset without one on the largest training
split; its row says which) and the test split is never read. Prints one line per dataset, each
source's pairs as a ratio of the rules'.

    python bench/candidate_recall.py --data-dir DIR [--datasets ecbplus,np4e,meantime,cd2cr,cerec]
        [--protocol standard] [--top 8] [--per-row 13.5] [--same-document 5] [--latent-weight W] [--space encoder]
        [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import replace

import ucdcr
from ucdcr.systems import SplitData
from ucdcr.systems.parts.candidates import Candidates, candidate_pairs, coreferent_lemma_pairs, link_recall
from ucdcr.systems.reference.cross_encoder import CrossEncoder, CrossEncoderOptions
from ucdcr.systems.reference.pairwise import Pairwise

SOURCES = ("pairwise", "ranked")
VERSION_4_TOP = 8
"""Version 4's partners per mention in its unit (its default ``top``): the ``pairwise`` column uses it."""


def probe(options: CrossEncoderOptions) -> Callable[[], CrossEncoder]:
    class CandidateProbe(CrossEncoder):
        """Finds the cross-encoder's candidates on val from every source and describes them; predicts singletons."""

        name = "candidate-probe"

        def __init__(self) -> None:
            super().__init__(options)
            self.found = ""

        def fit(self, train: Sequence[SplitData], val: SplitData) -> None:
            self.lemma_pairs = coreferent_lemma_pairs(train)
            rules = candidate_pairs(val, self.lemma_pairs, self.options.neighbours, self.options.limit)
            self.ranker = Pairwise()
            self.ranker.seed = self.seed
            self.ranker.fit(train, val)
            found = [describe(val, rules)]
            self.space = self._fit_space(train, val)
            for source in SOURCES:
                self.options = replace(options, candidates=source)
                if source == "pairwise":
                    self.options = replace(self.options, top=VERSION_4_TOP)
                ranked = self._candidates(val)
                found.append(f"{describe(val, ranked)} ({ratio(ranked, rules):.2f}x)")
            fitted = "+".join(f"{data.dataset} {data.split}" for data in train)
            self.found = " | ".join([*found, fitted])

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
    parser.add_argument("--same-document", type=int, default=CrossEncoderOptions.same_document)
    parser.add_argument("--latent-weight", type=float, default=CrossEncoderOptions.latent_weight)
    parser.add_argument("--space", default=CrossEncoderOptions.space)
    parser.add_argument("--cache-dir", help="keep the mention encoders here (default: a temporary folder)")
    args = parser.parse_args()
    options = CrossEncoderOptions(
        top=args.top,
        per_row=args.per_row,
        same_document=args.same_document,
        latent_weight=args.latent_weight,
        space=args.space,
    )
    with tempfile.TemporaryDirectory() as temporary:
        cache = args.cache_dir or temporary
        result = ucdcr.benchmark(
            [probe(options)],
            datasets=args.datasets.split(","),
            data_dir=args.data_dir,
            protocol=args.protocol,
            cache_dir=cache,
            test=False,
            recompute=True,  # a kept cache dir holds the models, never a probe's stored description
        )
        print(
            f"val, {args.protocol} protocol; top {args.top}, {args.per_row:g} pairs per mention; ranked: "
            f"{args.same_document} in the document, {args.space} space at weight {args.latent_weight:g}"
        )
        print("dataset | rules | pairwise (version 4) | ranked (the default) | fitted on")
        for run in result.runs:
            print(f"{run.dataset} | {run.model}")


if __name__ == "__main__":
    main()
