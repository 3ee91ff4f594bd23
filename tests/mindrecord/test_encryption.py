"""MindRecord encryption: ``set_enc_key`` / ``set_enc_mode`` / ``set_dec_mode`` (NOTE:
[Encrypted MindRecord layout] in spore/mindrecord/config.py). Where the reference interpreter
is installed, each framework reads the other's encrypted files."""
import os
import subprocess

import numpy as np
import pytest

import spore as ms
from spore import mindrecord
from spore.mindrecord import FileReader, FileWriter

pytest.importorskip("cryptography")

REFERENCE = os.environ.get("SPORE_REFERENCE_PYTHON", "/work/msref/bin/python")
KEY = "0123456789abcdef"
SCHEMA = {"id": {"type": "int32"}, "data": {"type": "bytes"},
          "vec": {"type": "float32", "shape": [2]}}


@pytest.fixture(autouse=True)
def _reset():
    yield
    mindrecord.set_enc_key(None)
    mindrecord.set_enc_mode("AES-GCM")
    mindrecord.set_dec_mode(None)


def _write(path, shard_num=1):
    writer = FileWriter(path, shard_num=shard_num, overwrite=True)
    writer.set_header_size(1 << 14)
    writer.set_page_size(1 << 15)
    writer.add_schema(SCHEMA, "enc")
    writer.write_raw_data([{"id": i, "data": bytes([i]) * 5,
                            "vec": np.array([i, -i], np.float32)} for i in range(6)])
    writer.commit()


def _ids(path):
    return sorted(int(r["id"]) for r in FileReader(path).get_next())


def test_names_are_mindsporess_and_validate_like_it():
    assert ms.set_enc_key is mindrecord.set_enc_key is mindrecord.config.set_enc_key
    assert ms.set_enc_mode is mindrecord.set_enc_mode and ms.set_dec_mode is mindrecord.set_dec_mode
    with pytest.raises(ValueError, match="The input enc_key is not str."):
        ms.set_enc_key(b"0123456789abcdef")
    with pytest.raises(ValueError, match="The length of input enc_key is not 16, 24, 32."):
        ms.set_enc_key("short")
    with pytest.raises(ValueError, match="The input enc_mode is invalid."):
        ms.set_enc_mode("AES-CBC")
    with pytest.raises(ValueError, match="The input enc_mode is not str."):
        ms.set_enc_mode(3)
    with pytest.raises(ValueError, match="The input dec_mode is invalid."):
        ms.set_dec_mode("SM4-CBC")
    ms.set_dec_mode(None)


def test_encrypted_files_round_trip_and_hide_their_content(tmp_path):
    path = str(tmp_path / "a.mindrecord")
    ms.set_enc_key(KEY)
    _write(path, shard_num=2)
    for shard in (path + "0", path + "1"):
        for f in (shard, shard + ".db"):
            data = open(f, "rb").read()
            assert data.endswith(b"\x00\x00\x00\x00AES-GCMENCRYPT")
            assert b"SQLite format" not in data and b"shard_addresses" not in data
    assert _ids(path + "0") == list(range(6))
    rows = list(ms.dataset.MindDataset([path + "1"], shuffle=False).create_dict_iterator(
        output_numpy=True))
    assert len(rows) == 3 and rows[0]["vec"].tolist() == [3.0, -3.0]


def test_key_mismatch_and_missing_key_are_errors(tmp_path):
    path = str(tmp_path / "a.mindrecord")
    ms.set_enc_key(KEY)
    _write(path)
    ms.set_enc_key("X" * 16)
    with pytest.raises(RuntimeError, match="Failed to decrypt data"):
        _ids(path)
    ms.set_enc_key(None)
    with pytest.raises(RuntimeError, match="The mindrecord file is encrypted"):
        _ids(path)
    plain = str(tmp_path / "p.mindrecord")
    _write(plain)
    ms.set_enc_key(KEY)
    with pytest.raises(RuntimeError, match="The mindrecord file is not encrypted"):
        _ids(plain)


def test_user_functions_encrypt_and_decrypt(tmp_path):
    def enc(f_in, size, f_out, key):
        f_out.write(bytes(b ^ 0x5A for b in f_in.read(size)))

    def dec(f_in, size, f_out, key):
        f_out.write(bytes(b ^ 0x5A for b in f_in.read(size - 4 - 7)))

    path = str(tmp_path / "u.mindrecord")
    ms.set_enc_key(KEY)
    ms.set_enc_mode(enc)
    _write(path)
    assert open(path, "rb").read().endswith(b"UDF-ENCENCRYPT")
    with pytest.raises(RuntimeError, match="must also define custom decryption"):
        _ids(path)
    ms.set_dec_mode(dec)
    assert _ids(path) == list(range(6))


# ------------------------------------------------------------------------ interchange
_MS_SCRIPT = """
import sys, numpy as np
from mindspore.mindrecord import FileReader, FileWriter, set_enc_key
set_enc_key(sys.argv[1])
print(sorted(int(r['id']) for r in FileReader(sys.argv[2]).get_next()))
w = FileWriter(sys.argv[3], shard_num=1, overwrite=True)
w.add_schema({'id': {'type': 'int32'}, 'data': {'type': 'bytes'}}, 'ms')
w.write_raw_data([{'id': i * 10, 'data': b'x'} for i in range(4)])
w.commit()
"""


@pytest.mark.skipif(not os.path.exists(REFERENCE), reason="reference MindSpore not installed")
def test_mindspore_and_spore_read_each_others_encrypted_files(tmp_path):
    ours, theirs = str(tmp_path / "spore.mindrecord"), str(tmp_path / "ms.mindrecord")
    ms.set_enc_key(KEY)
    _write(ours)
    run = subprocess.run([REFERENCE, "-c", _MS_SCRIPT, KEY, ours, theirs], capture_output=True,
                         text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == str(list(range(6)))
    assert open(theirs, "rb").read().endswith(b"AES-GCMENCRYPT")
    assert _ids(theirs) == [0, 10, 20, 30]
