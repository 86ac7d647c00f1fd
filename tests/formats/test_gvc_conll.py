"""verbose.conll and the GVC split CSVs, on tiny files written in the original format (MANIFEST.md §3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ucdcr.errors import FormatError
from ucdcr.formats.gvc_conll import read_doc_to_event, read_split_events, read_verbose_conll

DOC = "a212420b8d7c079bd385ff4dba9fea86"


def conll_lines(doc: str = DOC) -> list[str]:
    """One document: DCT line, a title sentence, two body sentences, a NEWLINE inside b2."""
    rows = [
        (f"{doc}.DCT", "2017-01-14", "DCT", "-", "-"),
        (f"{doc}.t1.0", "Reno", "TITLE", "-", "-"),
        (f"{doc}.t1.1", "Man", "TITLE", "-", "-"),
        (f"{doc}.t1.2", "Shot", "TITLE", "610379.injury.-", "(123)"),
        (f"{doc}.b1.0", "A", "BODY", "-", "-"),
        (f"{doc}.b1.1", "man", "BODY", "-", "-"),
        (f"{doc}.b1.2", "opened", "BODY", "610379.shooting.shooter", "(77"),
        (f"{doc}.b1.3", "fire", "BODY", "610379.shooting.shooter", "77"),
        (f"{doc}.b1.4", "there", "BODY", "610379.shooting.shooter", "77)"),
        (f"{doc}.b1.5", ".", "BODY", "-", "-"),
        (f"{doc}.b2.0", "Police", "BODY", "-", "-"),
        (f"{doc}.b2.1", "arrived", "BODY", "610379.other.-", "(0)"),
        (f"{doc}.b2.2", "NEWLINE", "BODY", "-", "-"),
        (f"{doc}.b2.3", "He", "BODY", "-", "-"),
        (f"{doc}.b2.4", "was", "BODY", "-", "-"),
        (f"{doc}.b2.5", "wounded", "BODY", "610379.injury.-", "(123)"),
    ]
    return [f"#begin document ({doc});", *("\t".join(r) for r in rows), "#end document"]


def write(tmp_path: Path, lines: list[str], name: str = "verbose.conll") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_tokens_sentences_and_newline_rule(tmp_path: Path) -> None:
    (doc,) = read_verbose_conll(write(tmp_path, conll_lines()))
    assert doc.doc_id == DOC
    assert doc.title == "Reno_Man_Shot"
    # 16 lines minus the NEWLINE token = 15 tokens
    assert len(doc.tokens) == 15
    assert "NEWLINE" not in [t.text for t in doc.tokens]
    # sentences: DCT=0, t1=1, b1=2, b2 before NEWLINE=3, b2 after NEWLINE=4
    sentences = {t.key.split(".", 1)[1]: t.sent_index for t in doc.tokens}
    assert sentences["DCT"] == 0 and sentences["t1.0"] == 1 and sentences["b1.5"] == 2
    assert sentences["b2.1"] == 3 and sentences["b2.3"] == 4 and sentences["b2.5"] == 4


def test_mentions_and_chains(tmp_path: Path) -> None:
    (doc,) = read_verbose_conll(write(tmp_path, conll_lines()))
    spans = [(m.chain, [k.split(".", 1)[1] for k in m.token_keys]) for m in doc.mentions]
    assert spans == [("123", ["t1.2"]), ("77", ["b1.2", "b1.3", "b1.4"]), ("0", ["b2.1"]), ("123", ["b2.5"])]
    assert doc.mentions[1].description == "610379.shooting.shooter"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda ls: [*ls[:5], ls[5].replace("\t-\t-", "\t-"), *ls[6:]], "expected 5 tab-separated columns"),
        (lambda ls: ls[:-1], "no #end document"),
        (lambda ls: [line.replace("\t77)", "\t77") for line in ls], "not closed"),
        (lambda ls: [line.replace("\t(77", "\t77") for line in ls], "never opened"),
        (lambda ls: [line.replace("\t(123)", "\t(12x)") for line in ls], "bad chain column"),
        (lambda ls: [line.replace("\tBODY\t", "\tPARA\t", 1) for line in ls], "DCT, TITLE or BODY"),
    ],
)
def test_malformed_conll(tmp_path: Path, edit, message: str) -> None:
    path = write(tmp_path, edit(conll_lines()))
    with pytest.raises(FormatError, match=message) as info:
        read_verbose_conll(path)
    assert str(path) in str(info.value)


def test_bad_line_number_is_reported(tmp_path: Path) -> None:
    lines = conll_lines()
    lines[7] = lines[7].replace("\t(77", "\t(7 7")  # line 8 of the file
    with pytest.raises(FormatError) as info:
        read_verbose_conll(write(tmp_path, lines))
    assert info.value.line == 8


def test_empty_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="no documents"):
        read_verbose_conll(write(tmp_path, []))


def test_split_and_mapping_csvs(tmp_path: Path) -> None:
    (tmp_path / "train.csv").write_text("0,584156\n1,610379\n", encoding="utf-8")
    (tmp_path / "dev.csv").write_text("0,693359\n", encoding="utf-8")
    (tmp_path / "test.csv").write_text("0,577792\n", encoding="utf-8")
    (tmp_path / "gvc_doc_to_event.csv").write_text(f"doc-id,event-id\n{DOC},610379\nb38b,693359\n", encoding="utf-8")
    assert read_split_events(tmp_path) == {"584156": "train", "610379": "train", "693359": "val", "577792": "test"}
    assert read_doc_to_event(tmp_path / "gvc_doc_to_event.csv") == {DOC: "610379", "b38b": "693359"}


def test_incident_in_two_splits_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "train.csv").write_text("0,584156\n", encoding="utf-8")
    (tmp_path / "dev.csv").write_text("0,584156\n", encoding="utf-8")
    (tmp_path / "test.csv").write_text("", encoding="utf-8")
    with pytest.raises(FormatError, match="also in split train"):
        read_split_events(tmp_path)


def test_mapping_without_header_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "gvc_doc_to_event.csv"
    path.write_text(f"{DOC},610379\n", encoding="utf-8")
    with pytest.raises(FormatError, match="header"):
        read_doc_to_event(path)


def test_newline_inside_a_mention_is_skipped(tmp_path: Path) -> None:
    lines = conll_lines()
    # make "arrived NEWLINE He" one mention of chain 5: (5 / 5) on the NEWLINE / ... closed on "He"
    lines = [line.replace("\t610379.other.-\t(0)", "\t610379.other.-\t(5") for line in lines]
    lines = [line.replace("NEWLINE\tBODY\t-\t-", "NEWLINE\tBODY\t-\t5") for line in lines]
    lines = [line.replace("He\tBODY\t-\t-", "He\tBODY\t-\t5)") for line in lines]
    (doc,) = read_verbose_conll(write(tmp_path, lines))
    mention = doc.mentions[2]
    assert [k.split(".", 1)[1] for k in mention.token_keys] == ["b2.1", "b2.3"]
    # no sentence break inside the open mention: b2 stays one sentence
    assert {t.sent_index for t in doc.tokens if ".b2." in t.key} == {3}
