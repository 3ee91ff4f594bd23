"""MindRecord encryption (``mindspore.mindrecord.config``; the functions are also in
``mindrecord`` and at the top level): ``set_enc_key`` /
``set_enc_mode`` / ``set_dec_mode`` make ``FileWriter.commit`` encrypt every shard and its
``.db`` index, and every reader decrypt them, in MindSpore's layout:

NOTE: [Encrypted MindRecord layout]
The plain file is cut into 64 MiB pieces; each is written as a big-endian int32 length and
the piece's cipher segments (spore/_crypto.py); then a length 0, the 7-byte mode name
(``AES-GCM``, or ``UDF-ENC`` for a user function) and the 7 bytes ``ENCRYPT``. A user
function ``enc_mode(f_in, size, f_out, key)`` writes everything before the length-0 marker
itself, and ``dec_mode(f_in, size, f_out, key)`` reads it back (``size`` excludes the
``ENCRYPT`` flag, as MindSpore passes it).

MindSpore decrypts into a ``.decrypt_mindrecord`` folder beside the files; Spore decrypts
into memory (the index is opened with ``sqlite3``'s ``deserialize``), so no plaintext copy is
left on disk.
"""
from __future__ import annotations

import io
import os
import shutil

from .. import _crypto

__all__ = ["set_enc_key", "set_enc_mode", "set_dec_mode"]

_END_FLAG = b"ENCRYPT"
_UDF = b"UDF-ENC"
_PIECE = 64 * 1024 * 1024
_state = {"key": None, "enc_mode": "AES-GCM", "dec_mode": None}


def set_enc_key(enc_key):
    """Encrypt the MindRecord files written and decrypt those read with ``enc_key`` (str of
    16, 24 or 32 characters); ``None`` turns encryption off.

    Raises:
        ValueError: ``enc_key`` is not a str or has another length.
    """
    if enc_key is None:
        _state["key"] = None
        return
    if not isinstance(enc_key, str):
        raise ValueError("The input enc_key is not str.")
    if len(enc_key) not in (16, 24, 32):
        raise ValueError("The length of input enc_key is not 16, 24, 32.")
    _state["key"] = enc_key


def set_enc_mode(enc_mode="AES-GCM"):
    """The cipher for writing: ``"AES-GCM"`` or a function ``f(f_in, size, f_out, key)``.

    Raises:
        ValueError: neither of those.
    """
    if not callable(enc_mode):
        if not isinstance(enc_mode, str):
            raise ValueError("The input enc_mode is not str.")
        if enc_mode != "AES-GCM":
            raise ValueError("The input enc_mode is invalid.")
    _state["enc_mode"] = enc_mode


def set_dec_mode(dec_mode="AES-GCM"):
    """The cipher for reading: ``"AES-GCM"``, a function ``f(f_in, size, f_out, key)``, or
    ``None`` (the ``set_enc_mode`` one; a user function must be given here too).

    Raises:
        ValueError: none of those.
    """
    if dec_mode is not None and not callable(dec_mode):
        if not isinstance(dec_mode, str):
            raise ValueError("The input dec_mode is not str.")
        if dec_mode != "AES-GCM":
            raise ValueError("The input dec_mode is invalid.")
    _state["dec_mode"] = dec_mode


def _dec_mode():
    mode = _state["dec_mode"]
    if mode is None:
        if callable(_state["enc_mode"]):
            raise RuntimeError("You use custom encryption, so you must also define custom "
                               "decryption.")
        return _state["enc_mode"]
    return mode


def _mode_name(mode):
    return _UDF if callable(mode) else mode.encode("utf-8")


# ------------------------------------------------------------------------ writing
def _encrypt_written(path):
    """Encrypt a just-written file in place when a key is set (``FileWriter.commit``)."""
    key, mode = _state["key"], _state["enc_mode"]
    if key is None:
        return
    tmp = path + ".encrypt"
    size = os.path.getsize(path)
    with open(path, "rb") as f, open(tmp, "wb") as out:
        if callable(mode):
            mode(f, size, out, key)
        else:
            while True:
                piece = f.read(_PIECE)
                if not piece:
                    break
                sealed = _crypto.encrypt(piece, key.encode("utf-8"), mode)
                out.write(len(sealed).to_bytes(4, "big", signed=True) + sealed)
        out.write((0).to_bytes(4, "big", signed=True) + _mode_name(mode) + _END_FLAG)
    shutil.move(tmp, path)


# ------------------------------------------------------------------------ reading
def _tail(path):
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        f.seek(max(0, size - 14))
        tail = f.read()
    return tail[-7:], tail[:-7][-7:]


def _readable(path):
    """``path`` itself, or for an encrypted file (a key set) a ``BytesIO`` of its plaintext."""
    flag, stored_mode = _tail(path) if os.path.getsize(path) >= 7 else (b"", b"")
    key = _state["key"]
    if key is None:
        if flag == _END_FLAG:
            raise RuntimeError("The mindrecord file is encrypted. You need to configure "
                               "'mindspore.mindrecord.config.set_enc_key(...)' and "
                               "'mindspore.mindrecord.config.set_enc_mode(...)' for decryption.")
        return path
    if flag != _END_FLAG:
        raise RuntimeError("The mindrecord file is not encrypted. You can set "
                           "'mindspore.mindrecord.config.set_enc_key(None)' to disable the "
                           "decryption.")
    mode = _dec_mode()
    if stored_mode != _mode_name(mode):
        raise RuntimeError("Failed to decrypt data, please check if enc_key and enc_mode / "
                           "dec_mode is valid.")
    return io.BytesIO(_decrypt_file(path, key, mode))


def _decrypt_file(path, key, mode):
    size = os.path.getsize(path) - len(_END_FLAG)
    out = io.BytesIO()
    with open(path, "rb") as f:
        if callable(mode):
            mode(f, size, out, key)
            return out.getvalue()
        data = f.read(size)
    pos, limit = 0, size - len(_UDF) - 4         # where the length-0 marker must start
    while True:
        n = int.from_bytes(data[pos:pos + 4], "big", signed=True) if pos <= limit else -1
        if n == 0:
            return out.getvalue()
        if n < 0 or pos + 4 + n > limit:
            raise RuntimeError(f"Invalid encrypted block length {n} in file: {path} at offset: "
                               f"{pos}.")
        try:
            out.write(_crypto.decrypt(data[pos + 4:pos + 4 + n], key.encode("utf-8"), mode))
        except _crypto.CipherError:
            raise RuntimeError("Failed to decrypt data, please check if enc_key and enc_mode / "
                               "dec_mode is valid.") from None
        pos += 4 + n
