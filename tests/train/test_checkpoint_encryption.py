"""Encrypted checkpoints: ``save_checkpoint(enc_key=, enc_mode=)`` / ``load_checkpoint(dec_key=,
dec_mode=)`` in MindSpore's cipher-segment layout (NOTE: [Cipher segment layout] in
spore/_crypto.py). Where the reference interpreter is installed, each framework reads the
other's encrypted file."""
import os
import struct
import subprocess

import numpy as np
import pytest

import spore as ms
from spore import _crypto

pytest.importorskip("cryptography")

REFERENCE = os.environ.get("SPORE_REFERENCE_PYTHON", "/work/msref/bin/python")
KEYS = {"AES-GCM": b"0123456789abcdef0123456789abcdef", "AES-CBC": b"0123456789abcdef01234567",
        "SM4-CBC": b"0123456789abcdef"}


def _params():
    return [{"name": "w", "data": ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))},
            {"name": "step", "data": ms.Tensor(np.array([7], dtype=np.int64))}]


def _check(loaded):
    np.testing.assert_array_equal(loaded["w"].asnumpy(), np.arange(6).reshape(2, 3))
    assert loaded["w"].dtype == ms.float32 and loaded["step"].asnumpy().tolist() == [7]


@pytest.mark.parametrize("mode", sorted(KEYS))
def test_round_trip_in_each_mode(tmp_path, mode):
    path = str(tmp_path / "enc.ckpt")
    ms.save_checkpoint(_params(), path, enc_key=KEYS[mode], enc_mode=mode)
    _check(ms.load_checkpoint(path, dec_key=KEYS[mode], dec_mode=mode))


@pytest.mark.parametrize("mode,overhead", [("AES-GCM", 48), ("AES-CBC", 32), ("SM4-CBC", 32)])
def test_file_is_mindspore_segment_layout(tmp_path, mode, overhead):
    """One segment: magic, (GCM tag), length, IV length 16, IV, ciphertext length, cipher."""
    plain, enc = str(tmp_path / "p.ckpt"), str(tmp_path / "e.ckpt")
    ms.save_checkpoint(_params(), plain)
    ms.save_checkpoint(_params(), enc, enc_key=KEYS[mode], enc_mode=mode)
    data, size = open(enc, "rb").read(), os.path.getsize(plain)
    magic = {"AES-GCM": 0x7F3A5ED8, "AES-CBC": 0x7F3A5ED9, "SM4-CBC": 0x7F3A5EDA}[mode]
    assert struct.unpack_from("<I", data)[0] == magic
    pos = 20 if mode == "AES-GCM" else 4
    n, iv_len = struct.unpack_from("<ii", data, pos)
    assert iv_len == 16 and pos + 4 + n == len(data)
    padded = size if mode == "AES-GCM" else (size // 16 + 1) * 16       # PKCS#7
    assert len(data) == padded + overhead
    assert struct.unpack_from("<i", data, pos + 8 + 16)[0] == padded
    assert data.count(b"step") == 0                                    # names are hidden too


def test_wrong_key_mode_or_plain_file_is_a_value_error(tmp_path):
    path = str(tmp_path / "e.ckpt")
    ms.save_checkpoint(_params(), path, enc_key=KEYS["AES-GCM"])
    with pytest.raises(ValueError, match="may be encrypted or tempered with"):
        ms.load_checkpoint(path, dec_key=b"X" * 32)
    with pytest.raises(ValueError, match="may be encrypted or tempered with"):
        ms.load_checkpoint(path, dec_key=KEYS["AES-GCM"], dec_mode="AES-CBC")
    with pytest.raises(ValueError, match="It is encrypted: pass the 'dec_key'"):
        ms.load_checkpoint(path)
    plain = str(tmp_path / "p.ckpt")
    ms.save_checkpoint(_params(), plain)
    with pytest.raises(ValueError, match="not an encrypted checkpoint file"):
        ms.load_checkpoint(plain, dec_key=KEYS["AES-GCM"])


def test_tampered_gcm_file_is_refused(tmp_path):
    path = str(tmp_path / "e.ckpt")
    ms.save_checkpoint(_params(), path, enc_key=KEYS["AES-GCM"])
    data = bytearray(open(path, "rb").read())
    data[-3] ^= 1
    os.chmod(path, 0o600)
    open(path, "wb").write(bytes(data))
    with pytest.raises(ValueError, match="tampered"):
        ms.load_checkpoint(path, dec_key=KEYS["AES-GCM"])


def test_bad_keys_modes_and_crc_are_refused_before_writing(tmp_path):
    path = str(tmp_path / "e.ckpt")
    with pytest.raises(ValueError, match=r"key length must be 16, 24, 32 bytes for AES-GCM, "
                                         r"but got key length 5"):
        ms.save_checkpoint(_params(), path, enc_key=b"short")
    with pytest.raises(ValueError, match=r"key length must be 16 bytes for SM4-CBC"):
        ms.save_checkpoint(_params(), path, enc_key=KEYS["AES-CBC"], enc_mode="SM4-CBC")
    with pytest.raises(ValueError, match=r"mode must be one of AES-GCM\|AES-CBC\|SM4-CBC"):
        ms.save_checkpoint(_params(), path, enc_key=KEYS["SM4-CBC"], enc_mode="aes-gcm")
    with pytest.raises(ValueError, match="mutually exclusive"):
        ms.save_checkpoint(_params(), path, enc_key=KEYS["SM4-CBC"], crc_check=True)
    with pytest.raises(TypeError, match="enc_key"):
        ms.save_checkpoint(_params(), path, enc_key="0123456789abcdef")
    assert not os.path.exists(path)


def test_async_save_encrypts(tmp_path):
    path = str(tmp_path / "a.ckpt")
    ms.save_checkpoint(_params(), path, async_save=True, enc_key=KEYS["AES-CBC"],
                       enc_mode="AES-CBC")
    ms.train.serialization.wait_async_save()
    _check(ms.load_checkpoint(path, dec_key=KEYS["AES-CBC"], dec_mode="AES-CBC"))


def test_segments_split_at_64_mib(monkeypatch):
    monkeypatch.setattr(_crypto, "SEGMENT", 10)
    data = bytes(range(25))
    enc = _crypto.encrypt(data, KEYS["SM4-CBC"], "AES-GCM")
    assert len(enc) == 25 + 3 * 48 and _crypto.decrypt(enc, KEYS["SM4-CBC"], "AES-GCM") == data
    assert _crypto.encrypt(b"", KEYS["SM4-CBC"], "AES-GCM") == b""


def test_missing_package_names_the_extra(monkeypatch):
    import builtins
    real = builtins.__import__

    def no_crypto(name, *args, **kwargs):
        if name.startswith("cryptography"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_crypto)
    with pytest.raises(ImportError, match=r"pip install 'spore\[crypto\]'"):
        _crypto.encrypt(b"x", KEYS["SM4-CBC"], "AES-GCM")


# ------------------------------------------------------------------------ interchange
_MS_SCRIPT = """
import sys, numpy as np, mindspore as ms
mode, key, theirs, ours = sys.argv[1], sys.argv[2].encode(), sys.argv[3], sys.argv[4]
p = ms.load_checkpoint(theirs, dec_key=key, dec_mode=mode)
print(p['w'].asnumpy().ravel().tolist(), int(p['step'].asnumpy()[0]))
ms.save_checkpoint([{'name': 'w', 'data': ms.Tensor(np.full((2, 2), 3.5, np.float32))}], ours,
                   enc_key=key, enc_mode=mode)
"""


@pytest.mark.skipif(not os.path.exists(REFERENCE), reason="reference MindSpore not installed")
@pytest.mark.parametrize("mode", sorted(KEYS))
def test_mindspore_and_spore_read_each_others_encrypted_files(tmp_path, mode):
    ours, theirs = str(tmp_path / "spore.ckpt"), str(tmp_path / "ms.ckpt")
    ms.save_checkpoint(_params(), ours, enc_key=KEYS[mode], enc_mode=mode)
    run = subprocess.run([REFERENCE, "-c", _MS_SCRIPT, mode, KEYS[mode].decode(), ours, theirs],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "[0.0, 1.0, 2.0, 3.0, 4.0, 5.0] 7"
    loaded = ms.load_checkpoint(theirs, dec_key=KEYS[mode], dec_mode=mode)
    np.testing.assert_array_equal(loaded["w"].asnumpy(), np.full((2, 2), 3.5, np.float32))


def test_model_checkpoint_writes_encrypted_files(tmp_path):
    from spore import nn
    from spore.train.callback import CheckpointConfig, ModelCheckpoint
    net = nn.Dense(3, 1)
    data = ms.dataset.NumpySlicesDataset(
        {"x": np.ones((4, 3), np.float32), "y": np.zeros((4, 1), np.float32)},
        shuffle=False).batch(2)
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    config = CheckpointConfig(save_checkpoint_steps=2, enc_key=KEYS["AES-CBC"],
                              enc_mode="AES-CBC")
    model.train(1, data, callbacks=[ModelCheckpoint("enc", str(tmp_path), config)],
                dataset_sink_mode=False)
    files = [f for f in os.listdir(tmp_path) if f.endswith(".ckpt")]
    assert files
    path = str(tmp_path / files[0])
    with pytest.raises(ValueError, match="It is encrypted"):
        ms.load_checkpoint(path)
    loaded = ms.load_checkpoint(path, dec_key=KEYS["AES-CBC"], dec_mode="AES-CBC")
    np.testing.assert_array_equal(loaded["weight"].asnumpy(), net.weight.asnumpy())
