"""Per-sentence token agreement with the authors' ECB+ release for three ways of rebuilding sentence text.

Usage: python bench/detokenizer_modes.py [--raw-dir ../shared/raw] [--reference ../shared/reference/ECBplus]

Modes: (a) our default detokenizer (ucdcr.pipeline.detokenize.rebuild_sentence), (b) the token-join heuristic of
REFERENCE.md §3.1 alone (effective rules), (c) a hybrid: §3.1 for sentences holding a URL-like token, a ':' or a ','
between digits (where the authors' corrector left the heuristic's spaces), the default elsewhere; the rule never
looks at the authors' output. oracle_ceiling (best of default / §3.1 per sentence, chosen by looking at the
reference) bounds what any per-sentence choice between the two can reach. Each sentence text is spaCy-tokenized
(tokenizer only) and compared with the reference's tokens of the same sentence (read from the windows of its
mentions, keyed by document key + sent_id).
A window spans ~7 sentences, so the estimated window identity printed is the sentence rate to the 7th power.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_NO_SPACE_BEFORE = ".,?!)]`\"'"


def reference_join(words: list[str]) -> str:
    """REFERENCE.md §3.1: join tokens one at a time (effective rules; later rules override earlier ones)."""
    text = ""
    for w in words:
        w = '"' if w == "``" else w
        if not text:
            text = w
            continue
        space = not (w in _NO_SPACE_BEFORE or w == "'s")  # rule 1 (substring semantics)
        if w in ("-", "(", '"'):  # rule 2
            space = True
        last = text[-1]
        if last == '"':
            space = text.count('"') % 2 == 0  # rules 3a / 3b
        if last in "([":
            space = False  # 3c
        if last == '"' and w.istitle():
            space = False  # 3e
        if w in ("com", "org") or w == "-" or last == "-":
            space = False  # 3f-h
        if len(text) >= 2:
            if w.isupper() and last == "." and text[-2].isupper():
                space = False  # 4i
            if not re.search(r"[\w\s]", text[-2:]):
                space = True  # 4j
            if last == "." and text[-2].isdigit() and any(c.isdigit() for c in w):
                space = False  # 4k
        text += (" " if space else "") + w
    return text


_HYBRID_TRIGGER = re.compile(r"(https?|www|\.com|\.org|/)|^:$|\d,\d")


def hybrid_uses_reference(words: list[str]) -> bool:
    return any(_HYBRID_TRIGGER.search(w) for w in words) or ":" in words


def _window_range(sentence_texts: list[str], sent_index: int, target: str) -> tuple[int, int] | None:
    """The run of sentences around ``sent_index`` whose text (spaces removed) equals the window's."""
    for start in range(sent_index, max(-1, sent_index - 20), -1):
        prefix = "".join(sentence_texts[start:sent_index])
        if not target.startswith(prefix):
            continue
        for end in range(sent_index + 1, min(len(sentence_texts), sent_index + 20) + 1):
            joined = prefix + "".join(sentence_texts[sent_index:end])
            if joined == target:
                return start, end
            if not target.startswith(joined):
                break
    return None


def print_windows(corpus, reference_rows, nlp, rebuild_sentence) -> None:
    """Window identity per mode: each reference window is located as a run of our sentences (by its text without
    spaces, so independent of tokenization), then its token list is compared with that run's tokens in each mode."""
    by_doc = defaultdict(list)
    for (doc_key, sent_id, _), row in reference_rows.items():
        by_doc[doc_key].append((sent_id, [t.replace("``", '"') for t in row["mention_context"]]))
    same = {"default": 0, "heuristic_3.1": 0, "hybrid": 0}
    windows = located = 0
    for document in corpus.documents:
        sentences = defaultdict(list)
        for token in document.tokens:
            sentences[token.sent_id].append(token)
        ids = list(sentences)
        tokens = {"default": [], "heuristic_3.1": [], "hybrid": []}
        for sent_id in ids:
            words = [t.text for t in sentences[sent_id]]
            default = [t.text for t in nlp.tokenize(rebuild_sentence(sentences[sent_id])[0])]
            heuristic = [t.text.replace("``", '"') for t in nlp.tokenize(reference_join(words))]
            tokens["default"].append(default)
            tokens["heuristic_3.1"].append(heuristic)
            tokens["hybrid"].append(heuristic if hybrid_uses_reference(words) else default)
        texts = ["".join(t) for t in tokens["default"]]
        for sent_id, window in by_doc.get(document.doc_key, []):
            windows += 1
            found = _window_range(texts, ids.index(sent_id), "".join(window)) if sent_id in sentences else None
            if found is None:
                continue
            located += 1
            for mode, per_sentence in tokens.items():
                same[mode] += [t for s in per_sentence[found[0] : found[1]] for t in s] == window
    print(f"reference windows: {windows}, located as a run of our sentences: {located}")
    for mode, count in same.items():
        print(f"{mode:14s} windows identical {100 * count / (windows or 1):6.2f}% of all ({count})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raw-dir", type=Path, default=REPO.parent / "shared" / "raw")
    parser.add_argument(
        "--reference",
        type=Path,
        default=REPO.parent / "shared" / "reference" / "ECBplus",
    )
    args = parser.parse_args()

    from ucdcr.analysis.compare import _by_span, _mention_sentences
    from ucdcr.pipeline import nlp
    from ucdcr.pipeline.detokenize import rebuild_sentence
    from ucdcr.registry import ReadOptions, get

    spec = get("ecbplus")
    corpus = spec.read(args.raw_dir / spec.raw_folder, ReadOptions())
    theirs = _mention_sentences(_by_span(args.reference))
    modes = {"default": 0, "heuristic_3.1": 0, "hybrid": 0, "oracle_ceiling": 0}
    on_triggered = {"default": 0, "heuristic_3.1": 0}
    compared = triggered = 0
    for document in corpus.documents:
        sentences = defaultdict(list)
        for token in document.tokens:
            sentences[token.sent_id].append(token)
        for sent_id, tokens in sentences.items():
            reference = theirs.get((document.doc_key, sent_id))
            if reference is None:
                continue
            compared += 1
            words = [t.text for t in tokens]
            default = [t.text for t in nlp.tokenize(rebuild_sentence(tokens)[0])] == reference
            heuristic = [t.text.replace("``", '"') for t in nlp.tokenize(reference_join(words))] == reference
            use_reference = hybrid_uses_reference(words)
            triggered += use_reference
            modes["default"] += default
            modes["heuristic_3.1"] += heuristic
            modes["hybrid"] += heuristic if use_reference else default
            modes["oracle_ceiling"] += default or heuristic  # best per-sentence choice; looks at the reference
            if use_reference:
                on_triggered["default"] += default
                on_triggered["heuristic_3.1"] += heuristic
    print_windows(corpus, _by_span(args.reference), nlp, rebuild_sentence)
    print(f"sentences holding a reference mention, compared: {compared} (hybrid used §3.1 for {triggered})")
    print(f"on those {triggered}: default identical {on_triggered['default']}, §3.1 {on_triggered['heuristic_3.1']}")
    for name, same in modes.items():
        rate = same / (compared or 1)
        print(f"{name:14s} sentences identical {100 * rate:6.2f}%   est. 7-sentence window {100 * rate**7:6.2f}%")


if __name__ == "__main__":
    main()
