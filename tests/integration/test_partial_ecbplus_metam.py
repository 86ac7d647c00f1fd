"""ECB+METAm on the real partial raw data: the superseded draft parses as a format sample; without the final
mention map the build gives the manual steps."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from tests.conftest import require

from ucdcr.datasets.ecbplus_metam import SPLIT_FILE, read_topic_splits
from ucdcr.errors import MissingRawData
from ucdcr.formats.metam_json import read_draft_tasks
from ucdcr.pipeline.build import build_dataset
from ucdcr.registry import get
from ucdcr.sources.download import dataset_status

DRAFT = "_superseded/project/corpus/ecb_meta/tasks.json"


def test_draft_tasks_parse_as_format_sample(raw_dir: Path) -> None:
    folder = require(raw_dir / "ECBplusMETAm")
    tasks = read_draft_tasks(require(folder / DRAFT))
    # counted on the file (docs/datasets/ecbplus_metam.md#raw-files: 3,025 tasks); 4 tasks have no span
    assert len(tasks) == 3025
    assert Counter(len(t.spans) for t in tasks) == {1: 3021, 0: 4}
    assert {s.label for t in tasks for s in t.spans} == {"EVT"}
    assert all('<mark id="mark">' in t.old_sentence for t in tasks)
    # the draft covers exactly the 18 val/test topics of the split file (8 val + 10 test)
    splits = read_topic_splits(folder / SPLIT_FILE)
    draft_topics = {t.mention_id.split("_", 1)[0] for t in tasks}
    assert draft_topics == {topic for topic, split in splits.items() if split in ("val", "test")}
    assert len(draft_topics) == 18


def test_build_without_mention_map_gives_manual_steps(raw_dir: Path, tmp_path: Path) -> None:
    folder = require(raw_dir / "ECBplusMETAm")
    if (folder / "ecbplus_metam.json").exists():
        report = build_dataset("ecbplus_metam", raw_dir=raw_dir, data_dir=tmp_path, jobs=2, progress=False)
        assert report.count_differences == []  # paper Table 8: 6556 original mentions (ucdcr/datasets/ecbplus_metam.py)
        return
    with pytest.raises(MissingRawData) as info:
        build_dataset("ecbplus_metam", raw_dir=raw_dir, data_dir=tmp_path, jobs=1, progress=False)
    message = str(info.value)
    assert "ecbplus_metam.json" in message and "8b766eb3c26ede6322bcdec434f88ad8d211ebe3" in message
    assert "MIT" in message and "ucdcr download ecbplus" in message


def test_manifest_status_names_the_missing_files(raw_dir: Path) -> None:
    status = dataset_status("ecbplus_metam", raw_dir)
    missing = sorted(e.path for e in status.entries if e.required and e.state == "missing")
    present = [e for e in status.entries if e.state != "missing"]
    if missing:
        assert not status.complete
        assert missing == ["ecbplus_metam.json"]  # only uCDCR meta + a draft: docs/raw-data.md#the-test-snapshot
    assert all(e.state == "verified" for e in present if e.path.startswith("ucdcr-meta"))


def _identity_mention_map(raw_dir: Path, paraphrase: bool) -> dict[str, dict[str, object]]:
    """A mention map in the final format for every ECB+ val/test mention of the validated sentences, built from
    the real ECB+ files; with ``paraphrase`` every event trigger of a sentence is rewritten (one paraphrase per
    sentence, shared by its records), entity mentions keep their text."""
    from collections import defaultdict

    ecb = get("ecbplus").read(raw_dir / "ECBplus")
    splits = read_topic_splits(raw_dir / "ECBplusMETAm" / SPLIT_FILE)
    documents = {d.doc_key: d for d in ecb.documents}
    by_sentence: dict[tuple[str, int], list] = defaultdict(list)
    for mention in ecb.mentions:
        document = documents[mention.doc_key]
        if splits[document.topic_id] in ("val", "test"):
            sentence = next(t.sent_id for t in document.tokens if t.token_id == mention.token_ids[0])
            by_sentence[(mention.doc_key, sentence)].append(mention)
    records = {}
    for (doc_key, sent_id), mentions in by_sentence.items():
        document = documents[doc_key]
        text = {t.token_id: t.text for t in document.tokens}
        original = " ".join(t.text for t in document.tokens if t.sent_id == sent_id)
        new_text = {m.source_id: " ".join(text[t] for t in m.token_ids) for m in mentions}
        sentence = original
        if paraphrase:
            for m in mentions:
                if m.kind == "event":
                    new_text[m.source_id] = "set ablaze " + new_text[m.source_id].upper()
                    sentence = sentence.replace(" ".join(text[t] for t in m.token_ids), new_text[m.source_id], 1)
        for m in mentions:
            start = max(sentence.find(new_text[m.source_id]), 0)
            key = f"{document.doc}.xml_{m.source_id}"
            records[key] = {
                "mention_id": key,
                "topic": document.topic_id,
                "doc_id": f"{document.doc}.xml",
                "m_id": m.source_id,
                "sentence_id": str(sent_id),
                "sentence": sentence,
                "mention_text": new_text[m.source_id],
                "start_char": start,
                "end_char": start + len(new_text[m.source_id]),
            }
    return records


@pytest.mark.parametrize("paraphrase", [False, True])
def test_reader_on_a_mention_map_built_from_real_ecbplus(raw_dir: Path, tmp_path: Path, paraphrase: bool) -> None:
    import json
    import shutil

    require(raw_dir / "ECBplus")
    (tmp_path / "ECBplus").symlink_to(raw_dir / "ECBplus")
    folder = tmp_path / "ECBplusMETAm"
    (folder / "ucdcr-meta").mkdir(parents=True)
    shutil.copy(raw_dir / "ECBplusMETAm" / SPLIT_FILE, folder / SPLIT_FILE)
    records = _identity_mention_map(raw_dir, paraphrase)
    (folder / "ecbplus_metam.json").write_text(json.dumps(records), encoding="utf-8")
    corpus = get("ecbplus_metam").read(folder)
    # paper Table 8: ECB+METAm has 6556 original mentions = the ECB+ val/test mentions of the validated sentences;
    # docs/reproducing.md#reference-numbers: 402 documents
    assert corpus.counts["annotated"] == len(records) == get("ecbplus_metam").expected("mentions_annotated")
    assert len(corpus.documents) == 402
    if not paraphrase:
        assert "paraphrased_sentences" not in corpus.counts and len(corpus.mentions) == 6556 and not corpus.dropped
    else:
        assert corpus.counts["paraphrased_sentences"] > 0
        # str.replace may rewrite an earlier occurrence of a repeated trigger; such mentions are dropped with a reason
        assert len(corpus.mentions) + len(corpus.dropped) == 6556 and len(corpus.dropped) < 20
        assert all("no longer occurs in the paraphrased sentence" in d.reason for d in corpus.dropped)
