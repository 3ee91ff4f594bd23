"""MindSpore's encrypted-file layout (checkpoints, MindRecord files), over the optional
``cryptography`` package (``pip install 'spore[crypto]'``): Spore writes no cipher itself.

NOTE: [Cipher segment layout]
MindSpore's ``Encrypt`` turns plaintext into segments of at most 64 MiB each, every one
self-describing (integers are little-endian int32, IVs 16 random bytes):

* AES-GCM: ``magic 0x7F3A5ED8 | tag (16) | n | ivlen=16 | iv | len | ciphertext``
* AES-CBC: ``magic 0x7F3A5ED9 | n | ivlen=16 | iv | len | ciphertext`` (PKCS#7 padding)
* SM4-CBC: as AES-CBC with magic ``0x7F3A5EDA`` (and a 16-byte key only)

``n`` counts the bytes after it. GCM takes the first 12 IV bytes as its nonce (OpenSSL's
default IV length; the other 4 are written but unused) and no associated data. An
encrypted ``.ckpt`` file is these segments, one per 64 MiB of the plain protobuf; MindRecord
files wrap them once more (``spore/mindrecord/_config.py``).
"""
from __future__ import annotations

import os
import struct

MODES = ("AES-GCM", "AES-CBC", "SM4-CBC")
_MAGIC = {"AES-GCM": 0x7F3A5ED8, "AES-CBC": 0x7F3A5ED9, "SM4-CBC": 0x7F3A5EDA}
_IV_LEN, _TAG_LEN, _NONCE_LEN = 16, 16, 12
SEGMENT = 64 * 1024 * 1024          # plaintext bytes per segment, as MindSpore


class CipherError(ValueError):
    """Wrong key or mode, a file that is not encrypted that way, or tampered content."""


def _package():
    try:
        from cryptography.hazmat.primitives import padding
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError:
        raise ImportError("Encrypted checkpoints and MindRecord files need the optional package "
                          "'cryptography': pip install 'spore[crypto]'.") from None
    return padding, Cipher, algorithms, modes, AESGCM


def check_key(api, key, mode):
    """MindSpore's rule: AES keys are 16, 24 or 32 bytes, SM4 keys 16."""
    if mode not in MODES:
        raise ValueError(f"For '{api}', the mode must be one of {'|'.join(MODES)}, but got "
                         f"{mode!r}.")
    sizes = (16,) if mode == "SM4-CBC" else (16, 24, 32)
    if len(key) not in sizes:
        raise ValueError(f"For '{api}', the key length must be {', '.join(map(str, sizes))} "
                         f"bytes for {mode}, but got key length {len(key)}.")


def encrypt(data, key, mode):
    """``data`` as MindSpore's cipher segments (empty data gives no segment, as MindSpore)."""
    return b"".join(_encrypt_segment(data[i:i + SEGMENT], key, mode)
                    for i in range(0, len(data), SEGMENT))


def _encrypt_segment(plain, key, mode):
    padding, Cipher, algorithms, modes, AESGCM = _package()
    iv = os.urandom(_IV_LEN)
    if mode == "AES-GCM":
        sealed = AESGCM(key).encrypt(iv[:_NONCE_LEN], plain, None)
        cipher, tag = sealed[:-_TAG_LEN], sealed[-_TAG_LEN:]
    else:
        padder = padding.PKCS7(128).padder()
        padded = padder.update(plain) + padder.finalize()
        algorithm = algorithms.AES(key) if mode == "AES-CBC" else algorithms.SM4(key)
        encryptor = Cipher(algorithm, modes.CBC(iv)).encryptor()
        cipher, tag = encryptor.update(padded) + encryptor.finalize(), b""
    body = struct.pack("<i", _IV_LEN) + iv + struct.pack("<i", len(cipher)) + cipher
    return struct.pack("<I", _MAGIC[mode]) + tag + struct.pack("<i", len(body)) + body


def is_encrypted(head):
    """Whether bytes start like a cipher segment of any mode."""
    return len(head) >= 4 and struct.unpack_from("<I", head)[0] in _MAGIC.values()


def decrypt(content, key, mode):
    """The plaintext of ``content`` (MindSpore cipher segments)."""
    out, pos = [], 0
    while pos < len(content):
        plain, pos = _decrypt_segment(content, pos, key, mode)
        out.append(plain)
    if not out:
        raise CipherError(f"the content is not encrypted with {mode}.")
    return b"".join(out)


def _field(content, pos, what):
    if pos + 4 > len(content):
        raise CipherError(f"the encrypted content is cut short in its {what}.")
    return struct.unpack_from("<i", content, pos)[0], pos + 4


def _decrypt_segment(content, pos, key, mode):
    padding, Cipher, algorithms, modes, AESGCM = _package()
    if len(content) - pos < 4 or struct.unpack_from("<I", content, pos)[0] != _MAGIC[mode]:
        raise CipherError(f"the content is not encrypted with {mode}.")
    pos += 4
    tag = content[pos:pos + _TAG_LEN] if mode == "AES-GCM" else b""
    pos += len(tag)
    size, pos = _field(content, pos, "segment length")
    end = pos + size
    if size < 0 or end > len(content):
        raise CipherError("the encrypted content is cut short or tampered with.")
    iv_len, pos = _field(content, pos, "IV length")
    if iv_len != _IV_LEN or pos + iv_len > end:
        raise CipherError("the encrypted content has a bad IV length.")
    iv, pos = content[pos:pos + iv_len], pos + iv_len
    n, pos = _field(content, pos, "ciphertext length")
    if n < 0 or pos + n != end:
        raise CipherError("the encrypted content has a bad ciphertext length.")
    cipher = content[pos:end]
    try:
        if mode == "AES-GCM":
            return AESGCM(key).decrypt(iv[:_NONCE_LEN], cipher + tag, None), end
        algorithm = algorithms.AES(key) if mode == "AES-CBC" else algorithms.SM4(key)
        decryptor = Cipher(algorithm, modes.CBC(iv)).decryptor()
        padded = decryptor.update(cipher) + decryptor.finalize()
        unpadder = padding.PKCS7(128).unpadder()
        return unpadder.update(padded) + unpadder.finalize(), end
    except ImportError:
        raise
    except Exception:               # InvalidTag, bad padding, a cipher length not in blocks
        raise CipherError("the key or mode is wrong, or the content was tampered "
                          "with.") from None
