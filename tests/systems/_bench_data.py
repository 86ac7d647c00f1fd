"""Tiny dataset folders for the benchmark tests, written in the authors' JSON layout (docs/unified-format.md).

Every split holds the same story in each subtopic: two documents report one attack (events "attack" / "strike",
coreferent: the lemma pair is seen coreferent in train) and one meeting ("meeting" / "talks"), with entity chains
"city" and "rebels". Each mention sits in a real sentence, so sentence lemmas and encodings are meaningful.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ucdcr.schema import MENTION_FIELDS

SENTENCES = {
    "d1": [
        "Rebels",
        "launched",
        "an",
        "attack",
        "on",
        "the",
        "northern",
        "city",
        "on",
        "Monday",
        ",",
        "officials",
        "said",
        ".",
    ],
    "d2": [
        "The",
        "strike",
        "on",
        "the",
        "northern",
        "city",
        "killed",
        "ten",
        "people",
        ",",
        "the",
        "rebels",
        "said",
        ".",
    ],
    "d3": ["Leaders", "held", "a", "meeting", "in", "the", "capital", "to", "discuss", "the", "budget", "."],
    "d4": ["The", "talks", "in", "the", "capital", "about", "the", "budget", "ended", "without", "a", "deal", "."],
}
# (chain suffix, kind, document, word) of every mention of a subtopic
MENTIONS = [
    ("ATT", "event", "d1", "attack"),
    ("ATT", "event", "d2", "strike"),
    ("MEET", "event", "d3", "meeting"),
    ("MEET", "event", "d4", "talks"),
    ("CITY", "entity", "d1", "city"),
    ("CITY", "entity", "d2", "city"),
    ("REB", "entity", "d1", "Rebels"),
    ("REB", "entity", "d2", "rebels"),
    ("CAP", "entity", "d3", "capital"),
    ("CAP", "entity", "d4", "capital"),
]
LEMMAS = {"talks": "talk", "Rebels": "rebel", "rebels": "rebel"}


def mention(split: str, subtopic: str, chain: str, kind: str, doc: str, word: str) -> dict[str, Any]:
    """One mention record with the 29 fields."""
    topic = subtopic[:-1]
    sentence = SENTENCES[doc]
    position = sentence.index(word)
    record = dict.fromkeys(MENTION_FIELDS)
    key = f"{split}/{topic}/{subtopic}/{doc}"
    record.update(
        coref_chain=f"{split}_{topic}_{chain}",
        mention_id=f"{key}/{word}",
        tokens_str=word,
        description="",
        coref_type="IDENTITY",
        mention_type="ACT" if kind == "event" else "LOC",
        mention_full_type="ACTION" if kind == "event" else "LOCATION",
        tokens_text=[word],
        tokens_number=[position],
        mention_head=word,
        mention_head_id=position,
        mention_head_pos="NOUN",
        mention_head_lemma=LEMMAS.get(word, word),
        mention_ner="O",
        sent_id=0,
        topic=topic,
        topic_id=topic,
        subtopic_id=subtopic,
        subtopic=subtopic,
        doc_id=doc,
        doc=doc,
        mention_context=sentence,
        context_start_end_global_id=[0, len(sentence) - 1],
        mention_sentence_start_end=[0, len(sentence)],
        tokens_number_context=[position],
        mention_head_id_context=position,
        is_singleton=False,
        conll_doc_key=key,
        split=split,
    )
    return record


def write_toy_dataset(folder: Path, splits: tuple[str, ...] = ("train", "val", "test")) -> Path:
    """A dataset folder: subtopics 1a, 1b, 2a in every split of ``splits`` (the others are empty)."""
    for split in ("train", "val", "test"):
        (folder / split).mkdir(parents=True, exist_ok=True)
        records: dict[str, list[dict[str, Any]]] = {"event": [], "entity": []}
        if split in splits:
            for subtopic in ("1a", "1b", "2a"):
                for chain, kind, doc, word in MENTIONS:
                    records[kind].append(mention(split, subtopic, f"{subtopic}_{chain}", kind, doc, word))
        for kind, items in records.items():
            (folder / split / f"{kind}_mentions.json").write_text(json.dumps(items), encoding="utf-8")
    return folder
