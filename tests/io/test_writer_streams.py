"""The streaming writers write the bytes the whole-list writers would: a JSON list one row per line, and parquet
row groups of ROW_GROUP_ROWS rows (pyarrow's default), here made small to cross several row groups."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ucdcr.pipeline import write as writer

SCHEMA = pa.schema([("word", pa.string()), ("ids", pa.list_(pa.int64()))])


@pytest.mark.parametrize("rows", [0, 1, 5])
def test_json_stream_equals_write_json(tmp_path: Path, rows: int) -> None:
    data = [{"word": f"Tür {i}", "ids": [i, i + 1]} for i in range(rows)]
    writer.write_json(tmp_path / "whole.json", data)
    with writer.JsonListStream(tmp_path / "stream.json") as stream:
        for row in data:
            stream.write(row)
    assert (tmp_path / "stream.json").read_bytes() == (tmp_path / "whole.json").read_bytes()


@pytest.mark.parametrize("rows", [0, 3, 10])
def test_parquet_stream_equals_write_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows: int) -> None:
    monkeypatch.setattr(writer, "ROW_GROUP_ROWS", 4)
    monkeypatch.setattr(writer, "ARROW_CHUNK_ROWS", 3)  # chunks that do not fall on row-group boundaries
    data = [{"word": f"w{i}", "ids": list(range(i))} for i in range(rows)]
    table = pa.Table.from_pylist(data, schema=SCHEMA)
    pq.write_table(table, tmp_path / "whole.parquet", compression="zstd", row_group_size=4)
    with writer.ParquetStream(tmp_path / "stream.parquet", SCHEMA) as stream:
        for row in data:
            stream.write(row)
    assert pq.ParquetFile(tmp_path / "stream.parquet").num_row_groups == max(1, -(-rows // 4))
    assert (tmp_path / "stream.parquet").read_bytes() == (tmp_path / "whole.parquet").read_bytes()


def test_parquet_row_groups_close_at_the_byte_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer, "ARROW_CHUNK_ROWS", 2)
    data = [{"word": f"w{i}", "ids": list(range(50))} for i in range(10)]
    two_rows = pa.Table.from_pylist(data[:2], schema=SCHEMA).nbytes
    monkeypatch.setattr(writer, "ROW_GROUP_BYTES", 2 * two_rows)  # a group closes after two chunks = 4 rows
    with writer.ParquetStream(tmp_path / "stream.parquet", SCHEMA) as stream:
        for row in data:
            stream.write(row)
    file = pq.ParquetFile(tmp_path / "stream.parquet")
    assert [file.metadata.row_group(i).num_rows for i in range(file.num_row_groups)] == [4, 4, 2]
    assert file.read().to_pylist() == data
    monkeypatch.setattr(writer, "ROW_GROUP_BYTES", 10 * two_rows)  # below the limit: one group, write_table's bytes
    with writer.ParquetStream(tmp_path / "one.parquet", SCHEMA) as stream:
        for row in data:
            stream.write(row)
    pq.write_table(pa.Table.from_pylist(data, schema=SCHEMA), tmp_path / "whole.parquet", compression="zstd")
    assert (tmp_path / "one.parquet").read_bytes() == (tmp_path / "whole.parquet").read_bytes()


@pytest.mark.parametrize("batch", [1, 2, 5, 7])
def test_parquet_column_batches_equal_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int) -> None:
    monkeypatch.setattr(writer, "ROW_GROUP_ROWS", 4)
    monkeypatch.setattr(writer, "ARROW_CHUNK_ROWS", 3)  # batches that cross chunk and row-group boundaries
    data = [{"word": f"w{i}", "ids": list(range(i))} for i in range(11)]
    with writer.ParquetStream(tmp_path / "rows.parquet", SCHEMA) as stream:
        for row in data:
            stream.write(row)
    with writer.ParquetStream(tmp_path / "columns.parquet", SCHEMA) as stream:
        for start in range(0, len(data), batch):
            part = data[start : start + batch]
            stream.write_columns({name: [row[name] for row in part] for name in SCHEMA.names})
    assert pq.ParquetFile(tmp_path / "columns.parquet").num_row_groups == 3
    assert (tmp_path / "columns.parquet").read_bytes() == (tmp_path / "rows.parquet").read_bytes()


def test_parquet_column_batches_of_unequal_lengths_are_refused(tmp_path: Path) -> None:
    with (
        pytest.raises(ValueError, match="unequal lengths"),
        writer.ParquetStream(tmp_path / "bad.parquet", SCHEMA) as stream,
    ):
        stream.write_columns({"word": ["a", "b"], "ids": [[1]]})
