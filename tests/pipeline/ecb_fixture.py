"""A tiny ECB+ raw folder in the original layout and formats (CAT XML, sentence CSV, uCDCR meta JSON), for tests.

Three topics: 1 (train), 2 (val), 36 (test); documents 1_1ecb, 1_2ecb, 1_1ecbplus, 2_1ecb, 36_1ecb. Sentence 0 of
every document is validated; sentence 1 of 1_1ecb is not (its mention is left out by default).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape


@dataclass
class Doc:
    topic: str
    name: str  # e.g. "1_1ecb"
    sentences: list[str]  # tokens separated by single spaces
    mentions: list[tuple[str, str, list[tuple[int, int]]]] = field(default_factory=list)  # m_id, tag, (sent, k)
    instances: list[tuple[str, str, str, str | None]] = field(default_factory=list)  # m_id, tag, descriptor, iid
    relations: list[tuple[str, list[str], str]] = field(default_factory=list)  # tag, sources, target


def cat_xml(doc: Doc) -> str:
    lines = [f'<Document doc_name="{doc.name}.xml" doc_id="DOC{doc.name}">']
    t_ids: dict[tuple[int, int], int] = {}
    t_id = 0
    for s, sentence in enumerate(doc.sentences):
        for k, token in enumerate(sentence.split(" ")):
            t_id += 1
            t_ids[(s, k)] = t_id
            lines.append(f'<token t_id="{t_id}" sentence="{s}" number="{k}">{escape(token)}</token>')
    lines.append("<Markables>")
    for m_id, tag, positions in doc.mentions:
        anchors = "".join(f'<token_anchor t_id="{t_ids[p]}"/>' for p in positions)
        lines.append(f'<{tag} m_id="{m_id}">{anchors}</{tag}>')
    for m_id, tag, descriptor, instance_id in doc.instances:
        iid = f' instance_id="{instance_id}"' if instance_id else ""
        lines.append(f'<{tag} m_id="{m_id}" RELATED_TO="" TAG_DESCRIPTOR="{descriptor}"{iid}/>')
    lines.append("</Markables>")
    lines.append("<Relations>")
    for r_id, (tag, sources, target) in enumerate(doc.relations, start=1):
        body = "".join(f'<source m_id="{s}"/>' for s in sources) + f'<target m_id="{target}"/>'
        lines.append(f'<{tag} r_id="{r_id}">{body}</{tag}>')
    lines.append("</Relations>")
    lines.append("</Document>")
    return "\n".join(lines) + "\n"


def default_docs() -> list[Doc]:
    reid = ("43", "HUMAN_PART_PER", "t1b_tara_reid", "HUM1")
    checkin = ("48", "ACTION_OCCURRENCE", "t1b_checking_in", "ACT1")
    return [
        Doc(
            "1",
            "1_1ecb",
            ["Tara Reid checked into rehab on Tuesday .", "She was n't available , her rep said ."],
            mentions=[
                ("20", "HUMAN_PART_PER", [(0, 0), (0, 1)]),
                ("32", "ACTION_OCCURRENCE", [(0, 2), (0, 3)]),
                ("30", "TIME_DATE", [(0, 5), (0, 6)]),
                ("21", "HUMAN_PART_PER", [(1, 0)]),
            ],
            instances=[reid, checkin],
            relations=[("CROSS_DOC_COREF", ["20", "21"], "43"), ("CROSS_DOC_COREF", ["32"], "48")],
        ),
        Doc(
            "1",
            "1_2ecb",
            ["Reid entered Promises in Malibu , the U . S . actress 's rep told People ."],
            mentions=[
                ("20", "HUMAN_PART_PER", [(0, 0)]),
                ("31", "ACTION_OCCURRENCE", [(0, 1)]),
                ("35", "LOC_GEO", [(0, 4)]),
                ("36", "HUMAN_PART_PER", [(0, 11), (0, 13)]),
            ],
            instances=[reid, checkin, ("50", "UNKNOWN_INSTANCE_TAG", "", None)],
            relations=[
                ("CROSS_DOC_COREF", ["20"], "43"),
                ("CROSS_DOC_COREF", ["31"], "48"),
                ("INTRA_DOC_COREF", ["36"], "50"),
            ],
        ),
        Doc(
            "1",
            "1_1ecbplus",
            ["Lindsay Lohan checked into rehab ."],
            mentions=[("5", "HUMAN_PART_PER", [(0, 0), (0, 1)]), ("6", "NEG_ACTION_OCCURRENCE", [(0, 2)])],
        ),
        Doc(
            "2",
            "2_1ecb",
            ["Hugh Jackman will host the Oscars ."],
            mentions=[("1", "HUMAN_PART_PER", [(0, 0), (0, 1)]), ("2", "ACTION_OCCURRENCE", [(0, 3)])],
            instances=[("9", "HUMAN_PART_PER", "t2_jackman", None)],
            relations=[("INTRA_DOC_COREF", ["1"], "9")],
        ),
        Doc(
            "36",
            "36_1ecb",
            ["`` We are sorry , '' the company said in a statement at 3 : 30 p.m. ."],
            mentions=[("1", "HUMAN_PART_ORG", [(0, 7)]), ("2", "ACTION_REPORTING", [(0, 8)])],
        ),
    ]


def write_ecb_raw(
    raw_dir: Path, docs: list[Doc] | None = None, splits: dict | None = None, validated: list[str] | None = None
) -> Path:
    """Write ``<raw_dir>/ECBplus`` and return ``raw_dir``."""
    root = raw_dir / "ECBplus"
    docs = default_docs() if docs is None else docs
    for doc in docs:
        folder = root / "ECB+_LREC2014" / "ECB+" / doc.topic
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{doc.name}.xml").write_text(cat_xml(doc), encoding="utf-8")
    rows = validated if validated is not None else [f"{d.topic},{d.name.split('_', 1)[1]},0" for d in docs]
    (root / "ECB+_LREC2014" / "ECBplus_coreference_sentences.csv").write_text(
        "Topic,File,Sentence Number\n" + "\n".join(rows) + "\n", encoding="utf-8"
    )
    meta = root / "ucdcr-meta"
    meta.mkdir(parents=True, exist_ok=True)
    splits = splits if splits is not None else {"train": [1, 15], "val": [2], "test": [36]}
    (meta / "train_val_test_split.json").write_text(json.dumps(splits), encoding="utf-8")
    names = {f"{t}{k}": f"subtopic {t}{k}" for t in ("1", "2", "36") for k in ("ecb", "ecbplus")}
    (meta / "subtopic_names.json").write_text(json.dumps(names), encoding="utf-8")
    return raw_dir
