"""NIdent-EN XML (AnCora-style inline markup, see ucdcr.formats.nident_xml) on tiny files written by the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from ucdcr.errors import FormatError
from ucdcr.formats.nident_xml import document_id, read_nident_xml

NAME = "20111107.near2_381791newsML.xml"
XML = """<?xml version="1.0" encoding="UTF-8"?>
<document>
 <sentence>
  <sn markerid="m1" entity="entity1" identdegree="3">
   <sn markerid="m2" entity="entity2"><w wd="Zaire" wdid="w1"/></sn>
   <w wd="'s" wdid="w2"/>
   <w wd="rebels" wdid="w3"/>
  </sn>
  <w wd="captured" wdid="w4"/>
  <sn markerid="m3" entity="entity3" identdegree="2"><w wd="Bukavu" wdid="w5"/></sn>
  <w wd="." wdid="w6"/>
 </sentence>
 <sentence>
  <sn markerid="m4" entity="entity1" identdegree="1"><w wd="They" wdid="w7"/></sn>
  <w wd="left" wdid="w8"/>
  <w wd="."/>
 </sentence>
</document>
"""


def write(tmp_path: Path, text: str = XML, name: str = NAME) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_words_sentences_and_nested_mentions(tmp_path: Path) -> None:
    document = read_nident_xml(write(tmp_path))
    assert document.doc_id == "381791"
    assert [(w.word_id, w.text, w.sentence) for w in document.words][-3:] == [
        ("w7", "They", 1),
        ("w8", "left", 1),
        ("P0", ".", 1),
    ]
    mentions = {m.marker_id: m for m in document.mentions}
    assert mentions["m1"].word_ids == ("w1", "w2", "w3") and mentions["m2"].word_ids == ("w1",)
    assert (mentions["m1"].entity, mentions["m1"].degree) == ("entity1", "3")
    assert mentions["m2"].degree == "3"  # identdegree absent -> identity
    assert mentions["m3"].degree == "2" and mentions["m4"].degree == "1" and mentions["m4"].sentence == 1


def test_document_id_from_file_name() -> None:
    assert document_id(Path("20111107.near2_360701newsML.xml")) == "360701"
    with pytest.raises(FormatError, match="no document number"):
        document_id(Path("corpus_newsML.xml"))


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        (XML.replace("</sentence>\n <sentence>", "<sentence>", 1), "malformed XML", None),
        (XML.replace('identdegree="2"', 'identdegree="near"'), "identdegree 'near' is not 1, 2 or 3", 10),
        (XML.replace('markerid="m3" ', ""), "an sn element has no markerid", 10),
        (XML.replace('wdid="w8"', 'wdid="w7"'), "word id 'w7' occurs twice", 15),
        ("<document/>", "no sentences", 1),
    ],
)
def test_malformed_xml(tmp_path: Path, text: str, message: str, line: int | None) -> None:
    path = write(tmp_path, text)
    with pytest.raises(FormatError, match=message) as info:
        read_nident_xml(path)
    assert str(path) in str(info.value)
    if line is not None:
        assert info.value.line == line
