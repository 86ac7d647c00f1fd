"""MMAX2 reader on tiny projects written by the tests (format as in NP4E's mmax2/ tree)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ucdcr.errors import FormatError
from ucdcr.formats import mmax2

WORDS = ["ZAIRE", ":", "Zaire", "planes", "bomb", "rebels", ".", "They", "fled", "."]


def write_project(
    folder: Path,
    name: str = "1newsML",
    words: list[str] = WORDS,
    coref: list[str] | None = None,
    sentences: list[str] | None = None,
    common_paths: bool = True,
) -> Path:
    (folder / "Basedata").mkdir(parents=True, exist_ok=True)
    (folder / "markables").mkdir(exist_ok=True)
    (folder / f"{name}.mmax").write_text(
        f'<?xml version="1.0"?>\n<mmax_project>\n<words>{name}_words.xml</words>\n</mmax_project>\n'
    )
    if common_paths:
        (folder / "common_paths.xml").write_text(
            "<?xml version='1.0'?>\n<common_paths>\n<basedata_path>Basedata/</basedata_path>\n"
            "<markable_path>markables/</markable_path>\n</common_paths>\n"
        )
    body = "\n".join(f'  <word id="word_{i}">{w}</word>' for i, w in enumerate(words, 1))
    (folder / "Basedata" / f"{name}_words.xml").write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<words>\n{body}\n</words>\n'
    )
    sentences = sentences if sentences is not None else ["word_1..word_7", "word_8..word_10"]
    write_level(
        folder,
        name,
        "sentence",
        [f'<markable id="markable_{i}" span="{s}" mmax_level="sentence"/>' for i, s in enumerate(sentences)],
    )
    coref = (
        coref
        if coref is not None
        else [
            '<markable id="markable_0" span="word_3..word_4" mmax_level="coref" coref_set="set_1"/>',
            '<markable id="markable_1" span="word_6" mmax_level="coref" coref_set="set_2"/>',
            '<markable id="markable_2" span="word_8" mmax_level="coref" coref_set="set_2" dir_antecedent="markable_1"/>',  # noqa: E501
            '<markable id="markable_3" span="word_1..word_1,word_3" mmax_level="coref" coref_set="set_3"/>',
        ]
    )
    write_level(folder, name, "coref", coref)
    return folder / f"{name}.mmax"


def write_level(folder: Path, name: str, level: str, lines: list[str]) -> None:
    body = "\n".join(lines)
    (folder / "markables" / f"{name}_{level}_level.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<markables xmlns="www.eml.org/NameSpaces/{level}">\n{body}\n</markables>\n'
    )


def test_reads_words_sentences_and_markables(tmp_path: Path) -> None:
    document = mmax2.read_project(write_project(tmp_path))
    assert [w.text for w in document.words] == WORDS
    assert document.sentence_of["word_7"] == 0 and document.sentence_of["word_8"] == 1
    coref = document.levels["coref"]
    assert [m.markable_id for m in coref] == ["markable_0", "markable_1", "markable_2", "markable_3"]
    assert coref[0].word_ids == ("word_3", "word_4")
    assert coref[2].attributes == {"mmax_level": "coref", "coref_set": "set_2", "dir_antecedent": "markable_1"}
    # discontinuous span "word_1..word_1,word_3": the listed words only, in document order
    assert coref[3].word_ids == ("word_1", "word_3") and coref[3].fragments == 2


def test_default_paths_without_common_paths(tmp_path: Path) -> None:
    document = mmax2.read_project(write_project(tmp_path, common_paths=False))
    assert len(document.words) == len(WORDS)


def test_sentences_numbered_in_document_order(tmp_path: Path) -> None:
    project = write_project(tmp_path, sentences=["word_8..word_10", "word_1..word_7"])
    document = mmax2.read_project(project)
    assert document.sentence_of["word_1"] == 0 and document.sentence_of["word_10"] == 1


def test_unknown_word_id_names_file_and_line(tmp_path: Path) -> None:
    project = write_project(
        tmp_path, coref=['<markable id="markable_0" span="word_3..word_99" mmax_level="coref" coref_set="set_1"/>']
    )
    with pytest.raises(FormatError, match=r"1newsML_coref_level\.xml:3: .*unknown word id 'word_99'"):
        mmax2.read_project(project)


def test_backwards_span_is_an_error(tmp_path: Path) -> None:
    project = write_project(tmp_path, coref=['<markable id="m" span="word_4..word_2" coref_set="set_1"/>'])
    with pytest.raises(FormatError, match="runs backwards"):
        mmax2.read_project(project)


def test_word_outside_every_sentence_is_an_error(tmp_path: Path) -> None:
    project = write_project(tmp_path, sentences=["word_1..word_7"])
    with pytest.raises(FormatError, match="3 words are in no sentence markable, first 'word_8'"):
        mmax2.read_project(project)


def test_truncated_xml_names_file(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    words = tmp_path / "Basedata" / "1newsML_words.xml"
    words.write_text(words.read_text()[:120])
    with pytest.raises(FormatError, match=r"1newsML_words\.xml:\d+: malformed XML"):
        mmax2.read_project(project)


def test_missing_level_file(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    (tmp_path / "markables" / "1newsML_coref_level.xml").unlink()
    with pytest.raises(FormatError, match=r"coref_level.xml: file not found"):
        mmax2.read_project(project)


def test_markable_without_span(tmp_path: Path) -> None:
    project = write_project(tmp_path, coref=['<markable id="markable_0" coref_set="set_1"/>'])
    with pytest.raises(FormatError, match="needs both id and span"):
        mmax2.read_project(project)


def test_duplicate_word_id(tmp_path: Path) -> None:
    project = write_project(tmp_path)
    words = tmp_path / "Basedata" / "1newsML_words.xml"
    words.write_text(words.read_text().replace('id="word_2"', 'id="word_1"'))
    with pytest.raises(FormatError, match="duplicate word id 'word_1'"):
        mmax2.read_project(project)
