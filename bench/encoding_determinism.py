"""What the benchmark's encoder vectors cost now that they depend on their input alone, and why (vectors.py).

Encodes N mention inputs made from ECB+ sentences (raw corpus, documents in path order, sentences of 3+ words, the
mention = the sentence's middle word) two or three ways, in --repeat rounds (the ways interleaved in each round, as
the machine's load may change), and prints min and median seconds:

- before: the v1 way, padded batches of 32 inputs sorted by length, torch on its default number of threads;
- one, all threads (with ``--all-threads-too``): a batch of one per input, default threads;
- after: a batch of one per input on one thread (:func:`ucdcr.systems.parts.vectors._encode`, what the benchmark runs).

Then the ratios to "before", how many vectors of each way are bit-identical to "after", and whether "after" gives
bit-identical vectors when the inputs come in reverse order (it must). The load average is printed before each
timing.
Never run as a test.

    python bench/encoding_determinism.py [--raw-dir ../shared/raw] [--inputs 2000] [--repeat 3] [--all-threads-too]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import torch

from ucdcr.embed import require_sentence_encoder
from ucdcr.systems.parts import vectors
from ucdcr.systems.parts.vectors import MentionInput, _encode, _unit

Vectors = tuple[dict[str, bytes], dict[str, bytes]]
Encoder = Callable[[Sequence[MentionInput]], Vectors]
Timings = dict[str, tuple[list[float], Vectors]]


def ecbplus_inputs(raw_dir: Path, count: int) -> list[MentionInput]:
    """``count`` mention inputs from the ECB+ sentences (module docstring)."""
    inputs: list[MentionInput] = []
    for path in sorted((raw_dir / "ECBplus" / "ECB+_LREC2014" / "ECB+").glob("*/*.xml")):
        sentences: dict[str, list[str]] = {}
        for token in ET.parse(path).getroot().iter("token"):
            sentences.setdefault(token.get("sentence", ""), []).append(token.text or "")
        for words in sentences.values():
            if len(words) >= 3:
                middle = len(words) // 2
                inputs.append(MentionInput(tuple(words[:96]), middle, middle + 1))
            if len(inputs) == count:
                return inputs
    raise SystemExit(f"only {len(inputs)} ECB+ sentences under {raw_dir}")


def batched_v1(items: Sequence[MentionInput]) -> Vectors:
    """The v1 encoding: padded batches of 32 distinct word lists, longest first, default threads."""
    transformer = require_sentence_encoder()[0]
    by_words: dict[tuple[str, ...], list[MentionInput]] = {}
    for item in items:
        by_words.setdefault(item.words, []).append(item)
    ordered = sorted(by_words, key=lambda words: (-len(words), words))
    spans: dict[str, bytes] = {}
    sentences: dict[str, bytes] = {}
    with torch.inference_mode():
        for begin in range(0, len(ordered), 32):
            batch = ordered[begin : begin + 32]
            encoded = transformer.tokenizer(
                [list(words) for words in batch],
                is_split_into_words=True,
                padding=True,
                truncation=True,
                max_length=transformer.max_seq_length,
                return_tensors="pt",
            )
            hidden = transformer.auto_model(
                input_ids=encoded["input_ids"], attention_mask=encoded["attention_mask"]
            ).last_hidden_state.numpy()
            mask = encoded["attention_mask"].numpy().astype(bool)
            for index, words in enumerate(batch):
                states = hidden[index][mask[index]]
                sentence = _unit(states.mean(axis=0))
                sentences[MentionInput(words, 0, 0).sentence_key] = sentence.tobytes()
                word_ids = np.array([-1 if w is None else w for w in encoded.word_ids(index)])[mask[index]]
                for item in by_words[words]:
                    inside = (word_ids >= item.start) & (word_ids < item.end)
                    spans[item.span_key] = (_unit(states[inside].mean(axis=0)) if inside.any() else sentence).tobytes()
    return spans, sentences


def alone_all_threads(items: Sequence[MentionInput]) -> Vectors:
    """A batch of one per input, torch on its default number of threads (``_encode`` without the thread pin)."""
    pin = vectors.one_thread
    vectors.one_thread = contextlib.nullcontext  # type: ignore[assignment]
    try:
        return _encode(items)
    finally:
        vectors.one_thread = pin


def timed(ways: dict[str, Encoder], items: Sequence[MentionInput], repeat: int) -> Timings:
    """Seconds of each way over ``repeat`` rounds, the ways interleaved in each round (so a change of the machine's
    load hits them alike), and the vectors of each way's last round."""
    seconds: dict[str, list[float]] = {label: [] for label in ways}
    results: dict[str, Vectors] = {}
    for round_ in range(repeat):
        for label, encode in ways.items():
            load = " ".join(f"{x:.2f}" for x in os.getloadavg())
            started = time.perf_counter()
            results[label] = encode(items)
            seconds[label].append(time.perf_counter() - started)
            print(f"round {round_ + 1} {label:>20}: {seconds[label][-1]:7.2f} s (load average before: {load})")
    return {label: (seconds[label], results[label]) for label in ways}


def identical(one: Vectors, two: Vectors) -> int:
    return sum(one[0][key] == two[0][key] for key in two[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raw-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "raw")
    parser.add_argument("--inputs", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--all-threads-too", action="store_true", help="also time a batch of one on all threads")
    args = parser.parse_args()
    items = ecbplus_inputs(args.raw_dir, args.inputs)
    words = [len(item.words) for item in items]
    distinct = len({item.words for item in items})
    print(f"{len(items)} inputs ({distinct} distinct sentences, {statistics.mean(words):.1f} words on average)")
    print(f"torch {torch.__version__}: {torch.get_num_threads()} threads by default, {os.cpu_count()} CPUs, ", end="")
    print(f"CPU capability {torch.backends.cpu.get_cpu_capability()}", flush=True)
    require_sentence_encoder()
    _encode(items[:20])  # warm-up: first calls allocate
    ways: dict[str, Encoder] = {"before (batch 32)": batched_v1, "after (one, 1 thread)": _encode}
    if args.all_threads_too:
        ways["one, all threads"] = alone_all_threads
    measured = timed(ways, items, args.repeat)
    before, _ = measured["before (batch 32)"]
    _, new = measured["after (one, 1 thread)"]
    for label, (seconds, vectors_of_way) in measured.items():
        print(
            f"{label:>21}: min {min(seconds):7.2f} s, median {statistics.median(seconds):7.2f} s; "
            f"x{min(seconds) / min(before):.2f} (min), x{statistics.median(seconds) / statistics.median(before):.2f} "
            f"(median) of before; {identical(vectors_of_way, new)}/{len(new[0])} mention vectors bit-identical to after"
        )
    reverse = _encode(list(reversed(items)))
    print(f"after, inputs reversed: {identical(reverse, new)}/{len(new[0])} bit-identical")


if __name__ == "__main__":
    main()
