"""Synthetic HyperCoref pipeline output, in the exact format the HyperCoref reader reads, at any size.

Usage: python bench/synthetic_hypercoref.py OUT_DIR [--mentions 100000] [--outlets 1] [--seed 0]

Writes ``OUT_DIR/HyperCoref/<outlet>/6_CreateSplitsStage_create_splits/{train,dev,test}/`` with
``tokens.parquet``, ``sentences.parquet`` and ``hyperlinks.parquet`` as the HyperCoref pipeline's CreateSplitsStage
writes them (pandas frames written by pyarrow, index levels as columns, the hyperlink index as
``__index_level_0__``; format: ``ucdcr.formats.hypercoref_parquet``, docs/datasets/hypercoref.md#raw-files), then
build it with ``ucdcr build hypercoref --raw-dir OUT_DIR --outlets all -o sample=false``. The first outlet is
``bbc.com`` (so the default build, which reads only it and samples it like the paper, works too), the others
``outlet01.com``, ``outlet02.com``, ...; the mentions are shared equally among the outlets.

Parameters and where they come from (paper Tables 2 and 4, HyperCoref_exp, the BBC sample; docs/datasets/
hypercoref.md#measured-figures):

- document length: log-normal with mean :data:`TOKENS_PER_DOCUMENT` = 727 tokens (Table 2: 29M tokens over 40,938
  documents); the spread (sigma 0.5) is assumed;
- hyperlinks per document: 1 + Poisson(0.5), mean :data:`MENTIONS_PER_DOCUMENT` = 1.5 (Table 2: 60,401 mentions
  over 40,938 documents; measured after the paper's sampling, which leaves out documents without a kept link);
- chains: 45% singletons, the others 2 + geometric, mean :data:`MENTIONS_PER_CHAIN` = 4.61 mentions per chain
  (Table 2: 13,102 chains, 5,869 singletons);
- topics and subtopics per outlet: 35 and 324 (Table 2), documents spread uniformly over them;
- splits by mentions: train 82%, val 10%, test 8% (Table 4: 49,777 / 5,865 / 4,759);
- assumed, no published figure: sentence length uniform 8..42 tokens (mean 25), anchor length 1..4 tokens, words
  drawn from a small English vocabulary (so spaCy's parser and tagger see ordinary sentences).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

TOKENS_PER_DOCUMENT = 727
DOCUMENT_SIGMA = 0.5
MENTIONS_PER_DOCUMENT = 1.5
MENTIONS_PER_CHAIN = 4.61
SINGLETON_SHARE = 5869 / 13102
TOPICS = 35
SUBTOPICS = 324
SPLIT_SHARES = (("train", 49777), ("dev", 5865), ("test", 4759))
SENTENCE_TOKENS = (8, 42)
ANCHOR_TOKENS = (1, 4)
STAGE = "6_CreateSplitsStage_create_splits"
DOCUMENTS_PER_CHUNK = 2000

VOCABULARY = (  # noqa: SIM905 (one string reads better than 130 quoted words)
    "the a an this that his her their its our new old local national former second last first many several "
    "government minister police court team club council company president officials people players fans "
    "report match election attack deal vote plan law case season crisis storm fire trial talks strike "
    "said says announced confirmed won lost signed attacked agreed voted killed arrested visited warned "
    "reported opened closed rejected approved launched denied met called expected will would could may "
    "in on at for with from after before during against over about into under between by of to and but "
    "London Paris Berlin Washington Moscow Chelsea Arsenal Labour Obama Merkel Europe China Britain Scotland "
    "Monday Tuesday Wednesday Thursday Friday weekend year month week morning night 2014 2015 three 20 100"
).split()


def pandas_metadata(index_columns: list[str]) -> dict[bytes, bytes]:
    meta = {"index_columns": index_columns, "column_indexes": [], "columns": [], "pandas_version": "1.3.5"}
    return {b"pandas": json.dumps(meta).encode()}


TOKEN_SCHEMA = pa.schema(
    [("url-normalized", pa.string()), ("sentence-idx", pa.int64()), ("token-idx", pa.int64()), ("token", pa.string())],
    metadata=pandas_metadata(["url-normalized", "sentence-idx", "token-idx"]),
)
SENTENCE_SCHEMA = pa.schema(
    [("url-normalized", pa.string()), ("sentence-idx", pa.int64()), ("sentence", pa.string())],
    metadata=pandas_metadata(["url-normalized", "sentence-idx"]),
)
HYPERLINK_SCHEMA = pa.schema(
    [
        ("to-url", pa.string()),
        ("sentence-idx", pa.int64()),
        ("chars-start", pa.int64()),
        ("chars-end", pa.int64()),
        ("url-normalized", pa.string()),
        ("to-url-normalized", pa.string()),
        ("token-idx-from", pa.int64()),
        ("token-idx-to", pa.int64()),
        ("__index_level_0__", pa.int64()),
    ],
    metadata=pandas_metadata(["__index_level_0__"]),
)


def chain_of_each_mention(mentions: int, rng: np.random.Generator) -> np.ndarray:
    """A chain number per mention: chain sizes as the module docstring says, mentions shuffled over them."""
    sizes: list[int] = []
    total = 0
    rest_mean = (MENTIONS_PER_CHAIN - SINGLETON_SHARE) / (1 - SINGLETON_SHARE) - 2  # mean beyond 2 of non-singletons
    while total < mentions:
        size = 1 if rng.random() < SINGLETON_SHARE else 2 + int(rng.geometric(1 / (1 + rest_mean))) - 1
        size = min(size, mentions - total)
        sizes.append(size)
        total += size
    chains = np.repeat(np.arange(len(sizes)), sizes)
    rng.shuffle(chains)
    return chains


def documents(outlet: str, split: str, mentions: int, rng: np.random.Generator) -> Iterator[tuple[str, int, int]]:
    """(url, tokens, hyperlinks) per document until ``mentions`` hyperlinks are placed."""
    placed = 0
    number = 0
    mu = np.log(TOKENS_PER_DOCUMENT) - DOCUMENT_SIGMA**2 / 2  # log-normal with that mean
    while placed < mentions:
        links = min(1 + int(rng.poisson(MENTIONS_PER_DOCUMENT - 1)), mentions - placed)
        length = int(np.clip(rng.lognormal(mu, DOCUMENT_SIGMA), 60, 6000))
        topic = int(rng.integers(TOPICS))
        subtopic = int(rng.integers(SUBTOPICS // TOPICS + 1))
        yield f"{outlet}/topic{topic:02d}/sub{topic:02d}x{subtopic}-{split}{number}", length, links
        placed += links
        number += 1


def write_split(folder: Path, outlet: str, split: str, mentions: int, rng: np.random.Generator) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    chains = chain_of_each_mention(mentions, rng)
    vocabulary = pa.array([*VOCABULARY, "."])
    period = len(VOCABULARY)
    with (
        pq.ParquetWriter(folder / "tokens.parquet", TOKEN_SCHEMA) as tokens_out,
        pq.ParquetWriter(folder / "sentences.parquet", SENTENCE_SCHEMA) as sentences_out,
        pq.ParquetWriter(folder / "hyperlinks.parquet", HYPERLINK_SCHEMA) as links_out,
    ):
        row = 0
        batch: list[tuple[str, int, int]] = []
        for document in documents(outlet, split, mentions, rng):
            batch.append(document)
            if len(batch) == DOCUMENTS_PER_CHUNK:
                row = write_chunk(
                    split, batch, chains, row, rng, vocabulary, period, tokens_out, sentences_out, links_out
                )
                batch = []
        if batch:
            write_chunk(split, batch, chains, row, rng, vocabulary, period, tokens_out, sentences_out, links_out)


def write_chunk(
    split: str,
    batch: list[tuple[str, int, int]],
    chains: np.ndarray,
    row: int,
    rng: np.random.Generator,
    vocabulary: pa.Array,
    period: int,
    tokens_out: pq.ParquetWriter,
    sentences_out: pq.ParquetWriter,
    links_out: pq.ParquetWriter,
) -> int:
    """Tokens, sentences and hyperlinks of a batch of documents; returns the next hyperlink row id."""
    token_sentence: list[np.ndarray] = []
    token_index: list[np.ndarray] = []
    token_word: list[np.ndarray] = []
    sentence_url: list[str] = []
    sentence_index: list[int] = []
    sentence_text: list[str] = []
    links: dict[str, list[object]] = {name: [] for name in HYPERLINK_SCHEMA.names}
    words = [*VOCABULARY, "."]
    for url, length, link_count in batch:
        lengths = []
        while sum(lengths) < length:
            lengths.append(int(rng.integers(SENTENCE_TOKENS[0], SENTENCE_TOKENS[1] + 1)))
        ids = rng.integers(0, period, size=sum(lengths))
        ends = np.cumsum(lengths)
        ids[ends - 1] = period  # each sentence ends with "."
        linked = rng.choice(len(lengths), size=min(link_count, len(lengths)), replace=False)
        start = 0
        for s, size in enumerate(lengths):
            sentence_ids = ids[start : start + size]
            texts = [words[i] for i in sentence_ids]
            token_sentence.append(np.full(size, s))
            token_index.append(np.arange(size))
            token_word.append(sentence_ids)
            text = " ".join(texts[:-1]) + "."
            sentence_url.append(url)
            sentence_index.append(s)
            sentence_text.append(text)
            if s in linked:
                anchor = int(rng.integers(ANCHOR_TOKENS[0], ANCHOR_TOKENS[1] + 1))
                first = int(rng.integers(0, max(size - 1 - anchor, 0) + 1))
                last = min(first + anchor, size - 1)  # end exclusive, before the period
                offsets = np.cumsum([0] + [len(t) + 1 for t in texts[:-1]])
                chain = int(chains[row])
                target = f"{url.split('/')[0]}/topic{chain % TOPICS:02d}/story-{split}{chain}"
                for name, value in (
                    ("to-url", "https://www." + target),
                    ("sentence-idx", s),
                    ("chars-start", int(offsets[first])),
                    ("chars-end", int(offsets[last - 1]) + len(texts[last - 1])),
                    ("url-normalized", url),
                    ("to-url-normalized", target),
                    ("token-idx-from", first),
                    ("token-idx-to", last),
                    ("__index_level_0__", row),
                ):
                    links[name].append(value)
                row += 1
            start += size
    sentence_of_token = np.repeat(np.arange(len(sentence_url)), [len(t) for t in token_sentence])
    tokens = pa.table(
        {
            "url-normalized": pa.array(sentence_url).take(pa.array(sentence_of_token)),
            "sentence-idx": pa.array(np.concatenate(token_sentence), pa.int64()),
            "token-idx": pa.array(np.concatenate(token_index), pa.int64()),
            "token": vocabulary.take(pa.array(np.concatenate(token_word))),
        },
        schema=TOKEN_SCHEMA,
    )
    tokens_out.write_table(tokens)
    sentences_out.write_table(
        pa.table(
            {"url-normalized": sentence_url, "sentence-idx": sentence_index, "sentence": sentence_text},
            schema=SENTENCE_SCHEMA,
        )
    )
    links_out.write_table(pa.table(links, schema=HYPERLINK_SCHEMA))
    return row


def outlet_names(count: int) -> list[str]:
    return ["bbc.com", *(f"outlet{k:02d}.com" for k in range(1, count))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the raw dir to write (HyperCoref/ goes under it)")
    parser.add_argument("--mentions", type=int, default=100_000)
    parser.add_argument("--outlets", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    total_share = sum(share for _, share in SPLIT_SHARES)
    outlets = outlet_names(args.outlets)
    for k, outlet in enumerate(outlets):
        outlet_mentions = args.mentions // len(outlets) + (1 if k < args.mentions % len(outlets) else 0)
        left = outlet_mentions
        for i, (split, share) in enumerate(SPLIT_SHARES):
            mentions = left if i == len(SPLIT_SHARES) - 1 else round(outlet_mentions * share / total_share)
            left -= mentions
            write_split(args.out / "HyperCoref" / outlet / STAGE / split, outlet, split, mentions, rng)
    print(
        f"{args.mentions:,} hyperlinks over {len(outlets)} outlet(s) written to {args.out / 'HyperCoref'} "
        f"in {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
