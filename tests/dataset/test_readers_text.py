"""TextFileDataset and CSVDataset on small files; the orders (files sorted by name, shards
as contiguous blocks of rows, the readers' rows interleaved) are MindSpore 2.10's, probed
with the same files and num_parallel_workers."""
import numpy as np
import pytest

import spore as ms
import spore.dataset as ds

from .helpers import rows


@pytest.fixture
def text_files(tmp_path):
    (tmp_path / "t1.txt").write_bytes(b"line one\n\nline three\nlast")
    (tmp_path / "t2.txt").write_bytes(b"second file\nrow2\n")
    return tmp_path


def _texts(dataset):
    return [r[0] for r in rows(dataset)]


def test_text_file_lines(text_files):
    d = ds.TextFileDataset(str(text_files / "t1.txt"), shuffle=False)
    assert d.get_col_names() == ["text"] and d.get_dataset_size() == 3
    assert _texts(d) == ["line one", "line three", "last"]
    (text_files / "t3.txt").write_bytes(b"crlf1\r\ncrlf2\r\n")
    assert _texts(ds.TextFileDataset(text_files / "t3.txt", shuffle=False)) == \
        ["crlf1\r", "crlf2\r"]
    (string,) = next(ds.TextFileDataset(text_files / "t1.txt", shuffle=False)
                     .create_tuple_iterator())
    assert isinstance(string, np.ndarray) and string.dtype.kind == "U"


def test_text_files_are_sorted_and_their_rows_interleaved(text_files):
    files = [str(text_files / "t2.txt"), str(text_files / "t1.txt")]
    two = ds.TextFileDataset(files, shuffle=False, num_parallel_workers=2)
    assert _texts(two) == ["line one", "second file", "line three", "row2", "last"]
    one = ds.TextFileDataset(files, shuffle=False, num_parallel_workers=1)
    assert _texts(one) == ["line one", "line three", "last", "second file", "row2"]
    pattern = ds.TextFileDataset(str(text_files / "t*.txt"), shuffle=False,
                                 num_parallel_workers=2)
    assert _texts(pattern) == _texts(two)
    assert _texts(ds.TextFileDataset(files, shuffle=False, num_samples=2,
                                     num_parallel_workers=1)) == ["line one", "line three"]


def test_text_file_shards(text_files):
    files = [str(text_files / "t1.txt"), str(text_files / "t2.txt")]

    def shard(n, k, workers=2):
        return _texts(ds.TextFileDataset(files, shuffle=False, num_shards=n, shard_id=k,
                                         num_parallel_workers=workers))

    assert [shard(3, k) for k in range(3)] == [["line one", "line three"],
                                               ["last", "second file"],
                                               ["row2", "line one"]]
    assert shard(2, 1) == ["second file", "line one", "row2"]
    assert shard(2, 1, workers=1) == ["second file", "row2", "line one"]
    assert shard(4, 3) == ["line three", "last"]
    assert ds.TextFileDataset(files, num_shards=2, shard_id=0).get_dataset_size() == 3


def test_text_file_shuffle_levels_keep_every_row(text_files):
    files = [str(text_files / "t1.txt"), str(text_files / "t2.txt")]
    everything = sorted(_texts(ds.TextFileDataset(files, shuffle=False)))
    for level in (True, ds.Shuffle.GLOBAL, ds.Shuffle.FILES, ds.Shuffle.INFILE,
                  ds.Shuffle.ADAPTIVE, ds.Shuffle.PARTIAL):
        assert sorted(_texts(ds.TextFileDataset(files, shuffle=level))) == everything
    in_order = ds.TextFileDataset(files, shuffle=ds.Shuffle.FALSE, num_parallel_workers=1)
    assert _texts(in_order) == ["line one", "line three", "last", "second file", "row2"]
    table = ds.NumpySlicesDataset(np.arange(5), shuffle=ds.Shuffle.FALSE)
    assert [r[0] for r in rows(table)] == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="does not exist"):
        ds.TextFileDataset(str(text_files / "missing.txt"))


@pytest.fixture
def csv_dir(tmp_path):
    (tmp_path / "one.csv").write_text('a,b,c\n1,2.5,x\n3,,"y,z"\n5,6.5,w\n')
    (tmp_path / "two.csv").write_text("a,b,c\n7,8.5,v\n")
    return tmp_path


def test_csv_header_names_the_columns_and_fields_are_strings(csv_dir):
    d = ds.CSVDataset(str(csv_dir / "one.csv"), shuffle=False)
    assert d.get_col_names() == ["a", "b", "c"] and d.get_dataset_size() == 3
    assert rows(d) == [["1", "2.5", "x"], ["3", "", "y,z"], ["5", "6.5", "w"]]
    named = ds.CSVDataset(csv_dir / "one.csv", column_names=["p", "q", "r"], shuffle=False)
    assert named.get_col_names() == ["p", "q", "r"] and rows(named)[0] == ["a", "b", "c"]


def test_csv_column_defaults_give_the_types(csv_dir):
    (csv_dir / "typed.csv").write_text("a,b,c\n 1 ,2.5, x \n3,4,\n")
    d = ds.CSVDataset(csv_dir / "typed.csv", column_defaults=[0, 0.0, "s"], shuffle=False)
    got = list(d.create_tuple_iterator(output_numpy=True))
    assert [x.dtype for x in got[0]] == [np.int32, np.float32, np.dtype("<U3")]
    assert [[x.tolist() for x in r] for r in got] == [[1, 2.5, " x "], [3, 4.0, ""]]
    short = ds.CSVDataset(csv_dir / "typed.csv", column_defaults=[0], shuffle=False)
    assert rows(short)[1] == [3, "4", ""]
    with pytest.raises(RuntimeError, match="parse failed at line 2, type does not match"):
        rows(ds.CSVDataset(csv_dir / "one.csv", column_defaults=[0, 0.0, ""], shuffle=False))


def test_csv_quotes_delimiters_and_bad_rows(csv_dir):
    (csv_dir / "q.csv").write_text('a,b\n"he said ""hi""",2\n"multi\nline",3\n')
    assert rows(ds.CSVDataset(csv_dir / "q.csv", shuffle=False)) == \
        [['he said "hi"', "2"], ["multi\nline", "3"]]
    (csv_dir / "semi.csv").write_text("a;b\n1;2\n")
    assert rows(ds.CSVDataset(csv_dir / "semi.csv", field_delim=";", shuffle=False)) == \
        [["1", "2"]]
    (csv_dir / "ragged.csv").write_text("a,b\n1,2\n3\n")
    with pytest.raises(RuntimeError, match="line 2 has 1 fields"):
        rows(ds.CSVDataset(csv_dir / "ragged.csv", shuffle=False))


def test_csv_files_interleave_and_shard(csv_dir):
    files = [str(csv_dir / "two.csv"), str(csv_dir / "one.csv")]
    two = ds.CSVDataset(files, shuffle=False, num_parallel_workers=2)
    assert [r[0] for r in rows(two)] == ["1", "7", "3", "5"]
    one = ds.CSVDataset(files, shuffle=False, num_parallel_workers=1)
    assert [r[0] for r in rows(one)] == ["1", "3", "5", "7"]
    shards = [[r[0] for r in rows(ds.CSVDataset(files, shuffle=False, num_shards=2, shard_id=k,
                                                 num_parallel_workers=2))] for k in range(2)]
    assert shards == [["1", "3"], ["5", "7"]]
    typed = ds.CSVDataset(files, column_defaults=[0, "", ""], shuffle=False, num_samples=2)
    label, value, _ = next(typed.create_tuple_iterator())
    assert label.dtype == ms.int32 and value.dtype.kind == "U"
    assert typed.get_dataset_size() == 2


def test_more_files_than_readers(tmp_path):
    # MindSpore 2.10 (probed): file k goes to reader k % num_parallel_workers; each reader
    # reads its files in turn and the readers' rows alternate
    for name, n in (("a", 3), ("b", 2), ("c", 4), ("d", 1)):
        (tmp_path / f"{name}.txt").write_text("".join(f"{name}{i}\n" for i in range(1, n + 1)))
    files = [str(tmp_path / f"{name}.txt") for name in "abcd"]

    def read(workers, **shard):
        return _texts(ds.TextFileDataset(files, shuffle=False, num_parallel_workers=workers,
                                         **shard))

    assert read(2) == ["a1", "b1", "a2", "b2", "a3", "d1", "c1", "c2", "c3", "c4"]
    assert read(1) == ["a1", "a2", "a3", "b1", "b2", "c1", "c2", "c3", "c4", "d1"]
    assert [read(2, num_shards=3, shard_id=k) for k in range(3)] == \
        [["a1", "b1", "a2", "a3"], ["b2", "c1", "c2", "c3"], ["c4", "d1", "a1", "a2"]]
