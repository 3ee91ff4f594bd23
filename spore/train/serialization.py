"""Checkpoints in MindSpore's own formats, so files move between the two frameworks.

``save_checkpoint`` writes MindSpore's protobuf ``.ckpt`` layout (see NOTE:
[Checkpoint layout] in ``_ckpt_proto.py``) or a safetensors file;
``load_checkpoint`` reads both back into ``{name: Parameter}`` and
``load_param_into_net`` copies such a dict into a Cell. Writes go to a
temporary file that is renamed into place and made read-only, as MindSpore
does; reading only parses bytes (no pickle, nothing executed).
"""
from __future__ import annotations

import binascii
import io
import math
import os
import re
import stat
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .. import _crypto
from .. import _dtype as D
from .._parameter import Parameter
from ..nn.cell import Cell
from .._tensor import Tensor
from . import _ckpt_proto as proto
from . import _safetensors as safetensors
from ._log import logger

__all__ = ["save_checkpoint", "load_checkpoint", "load_checkpoint_async", "load_param_into_net",
           "async_ckpt_thread_status",
           "ckpt_to_safetensors", "safetensors_to_ckpt"]

SLICE_SIZE = 512 * 1024          # KiB: a larger parameter is written as several entries
_CRC_MARK = b"crc_num"           # CRC trailer: the mark + CRC32 as a 10-byte big-endian int
_CRC_TRAILER = len(_CRC_MARK) + 10
_STR_TYPE = "str"
_NP_BY_TYPE = {d.name: d.np for d in D.ALL}
_FORMATS = ("ckpt", "safetensors")


# =============================================================================== saving
def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False,
                    append_dict=None, enc_key=None, enc_mode="AES-GCM", choice_func=None,
                    crc_check=False, format="ckpt", **kwargs):
    """Save parameters to a checkpoint file (MindSpore's ``.ckpt`` or safetensors).

    Args:
        save_obj (Union[Cell, list, dict]): a Cell (all its parameters, trainable or
            not), a list of Parameters, a list of ``{"name": str, "data": Tensor}``
            dicts, or a dict name -> Parameter (what ``load_checkpoint`` returns).
        ckpt_file_name (str): the file; ``.ckpt`` / ``.safetensors`` is appended when
            the name does not end with the format.
        integrated_save (bool): kept for compatibility (no parallel slices here).
        async_save (Union[bool, str]): write in a background thread (``True``,
            ``"thread"`` or ``"process"``); the data are snapshotted first.
        append_dict (dict): extra entries: int (saved as Int64), float (Float32),
            bool, str (a string entry) or Tensor.
        choice_func (Callable[[str], bool]): keep only the parameters it accepts.
        enc_key (bytes): encrypt the ``.ckpt`` file with this key (16, 24 or 32 bytes; 16
            for SM4), in MindSpore's layout (needs the ``crypto`` extra).
        enc_mode (str): ``"AES-GCM"``, ``"AES-CBC"`` or ``"SM4-CBC"``.
        crc_check (bool): append a CRC32 of the content, checked by ``load_checkpoint``
            (not with ``enc_key``: MindSpore documents the two as mutually exclusive).
        format (str): ``"ckpt"`` or ``"safetensors"``.

    Raises:
        TypeError: ``save_obj``, a name or an ``append_dict`` value has the wrong type.
        ValueError: an unknown ``format``, an option the format does not support, or a
            bad key length or mode.

    Examples:
        >>> import spore as ms
        >>> net = ms.nn.Dense(3, 2)
        >>> ms.save_checkpoint(net, "/tmp/dense.ckpt")
    """
    path = _check_save_target(save_obj, ckpt_file_name, format)
    if not _writes_here(path):          # data parallel: rank 0 writes (NOTE in management)
        return
    _check_type("save_checkpoint", "integrated_save", integrated_save, bool)
    async_save = _check_async_save(async_save)
    append_dict = _check_append_dict(append_dict)
    cipher = _check_save_options(enc_key, enc_mode, crc_check, format)
    records = _collect(save_obj, choice_func)
    records.update(_append_records(append_dict))
    if async_save:
        records = {k: v if isinstance(v, str) else v.copy() for k, v in records.items()}
        _async_writer.submit(path, records, crc_check, format, cipher)
    else:
        _write_records(path, records, crc_check, format, cipher)


def _writes_here(path):
    from ..communication.management import writes_checkpoint
    return writes_checkpoint(path)


def _check_save_target(save_obj, ckpt_file_name, format):
    if format not in _FORMATS:
        raise ValueError(f"For 'save_checkpoint', the format must be 'safetensors' or 'ckpt', "
                         f"but got {format}.")
    if not isinstance(save_obj, (Cell, list, dict)):
        raise TypeError(f"For 'save_checkpoint', the parameter 'save_obj' must be nn.Cell, list "
                        f"or dict, but got {type(save_obj)}.")
    if not isinstance(ckpt_file_name, str):
        raise TypeError(f"For 'save_checkpoint', the parameter {ckpt_file_name} for checkpoint "
                        f"file name is invalid,'ckpt_file_name' must be string, but got "
                        f"{type(ckpt_file_name)}.")
    path = os.path.realpath(ckpt_file_name)
    if os.path.isdir(path):
        raise IsADirectoryError(f"For 'save_checkpoint', the parameter `ckpt_file_name`: {path} "
                                "is a directory, it must be a file name.")
    return path if path.endswith(format) else f"{path}.{format}"


def _check_type(func, name, value, types):
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in _tuple(types)):
        raise TypeError(f"For '{func}', the '{name}' must be {_type_names(types)}, but got "
                        f"{type(value).__name__}.")
    return value


def _tuple(types):
    return types if isinstance(types, tuple) else (types,)


def _type_names(types):
    return " or ".join("None" if t is type(None) else t.__name__ for t in _tuple(types))


def _check_async_save(async_save):
    if not isinstance(async_save, (bool, str)):
        raise TypeError(f"For 'save_checkpoint', the parameter 'async_save' must be bool or str, "
                        f"but got {type(async_save)}.")
    if isinstance(async_save, str) and async_save not in ("process", "thread"):
        raise ValueError(f"For 'save_checkpoint', the argument 'async_save' can only be "
                         f"'process' or 'thread',but got {async_save}.")
    return async_save


def _check_append_dict(append_dict):
    if append_dict is None:
        return {}
    if not isinstance(append_dict, dict):
        raise TypeError(f"For 'save_checkpoint', the argument 'append_dict' must be dict, but "
                        f"got {type(append_dict)}.")
    for key, value in append_dict.items():
        if not isinstance(key, str) or not isinstance(value, (int, float, bool, str, Tensor)):
            raise TypeError(f"For 'save_checkpoint', the type of dict 'append_info' must be key: "
                            f"string, value: int, float, bool or Generator, but got key: "
                            f"{type(key)}, value: {type(value)}")
    return append_dict


def _check_save_options(enc_key, enc_mode, crc_check, format):
    """The ``(key, mode)`` to encrypt with, or None."""
    _check_type("save_checkpoint", "enc_key", enc_key, (type(None), bytes))
    _check_type("save_checkpoint", "enc_mode", enc_mode, str)
    _check_type("save_checkpoint", "crc_check", crc_check, bool)
    cipher = _check_encryption("save_checkpoint", "enc", format, enc_key, enc_mode)
    if cipher and crc_check:
        # MindSpore appends the CRC after the cipher segments, a file it cannot read back
        raise ValueError("For 'save_checkpoint', the 'enc_key' and 'crc_check' parameters are "
                         "mutually exclusive and cannot be configured simultaneously.")
    return cipher


def _check_encryption(api, prefix, format, key, mode):
    """The ``(key, mode)`` of ``{prefix}_key`` / ``{prefix}_mode``, or None without a key;
    safetensors has no encryption, so both must keep their defaults there."""
    if format == "safetensors" and (key is not None or mode != "AES-GCM"):
        name, default, got = ((f"{prefix}_key", None, key) if key is not None
                              else (f"{prefix}_mode", "AES-GCM", mode))
        raise ValueError(f"For '{api}', when format is 'safetensors', the parameter "
                         f"'{name}' must be set to default value '{default}', but got "
                         f"'{got}'.")
    if key is None:
        return None
    _crypto.check_key(api, key, mode)
    return key, mode


# ------------------------------------------------------------------ save_obj -> records
def _collect(save_obj, choice_func):
    """``{name: ndarray | str}`` in save order (a repeated name keeps its first position)."""
    if isinstance(save_obj, Cell):
        items = [(p.name, p) for _, p in save_obj.parameters_and_names()]
    elif isinstance(save_obj, list):
        items = _list_items(save_obj)
    else:
        items = _dict_items(save_obj)
    records = {}
    for name, value in items:
        if choice_func is None or choice_func(name):
            records[name] = value if isinstance(value, str) else value.asnumpy()
    return records


def _list_items(save_obj):
    if save_obj and isinstance(save_obj[0], dict):
        return [_dict_entry(entry) for entry in save_obj]
    for p in save_obj:
        if not isinstance(p, Parameter):
            raise TypeError(f"For save_checkpoint, when save_obj is made up by list of Parameter,"
                            f"the param should be parameter, but got {type(p)}")
    return [(p.name, p) for p in save_obj]


def _dict_entry(entry):
    if not (isinstance(entry, dict) and "name" in entry and "data" in entry):
        raise TypeError(f"For save_checkpoint, save_obj should be a list of dict items, and the "
                        f"dict should have key values 'name' and 'value', but got {type(entry)} "
                        f"and {entry}.")
    if not isinstance(entry["name"], str):
        raise TypeError(f"For save_checkpoint, when save_obj is a list of dict items, the name "
                        f"in dict should be string, but got {type(entry['name'])}.")
    if not isinstance(entry["data"], Tensor):
        raise TypeError(f"For save_checkpoint, when save_obj is a list of dict items, the data "
                        f"in dict should be parameter, but got {type(entry['data'])}.")
    return entry["name"], entry["data"]


def _dict_items(save_obj):
    items = []
    for key, value in save_obj.items():
        if isinstance(value, np.ndarray):
            value = Tensor(value)
        if not isinstance(key, str) or not isinstance(value, (Tensor, str)):
            raise TypeError(f"For save_checkpoint, when save_obj is made up by dict, the key "
                            f"should be str and value should be Parameter, but got the type of "
                            f"key is {type(key)} and the type of value is {type(value)}")
        items.append((key, value))
    return items


def _append_records(append_dict):
    """Python scalars become 0-d tensors as ``Tensor(value)`` makes them (int -> Int64)."""
    return {k: v if isinstance(v, str) else (v if isinstance(v, Tensor) else Tensor(v)).asnumpy()
            for k, v in append_dict.items()}


# ------------------------------------------------------------------ records -> file
def _write_records(path, records, crc_check, format, cipher=None):
    try:
        if format == "ckpt" and cipher:
            plain = io.BytesIO()
            _write_ckpt(plain, records, crc_check)
            data = _crypto.encrypt(plain.getvalue(), *cipher)
            _write_atomic(path, lambda f: f.write(data))
        elif format == "ckpt":
            _write_atomic(path, lambda f: _write_ckpt(f, records, crc_check))
        else:
            data = _safetensors_bytes(records, crc_check)
            _write_atomic(path, lambda f: f.write(data))
    except Exception as e:
        logger.critical("Failed to save the checkpoint file %s (%s: %s). Maybe don't have the "
                        "permission to write files, or the disk space is insufficient and so on.",
                        path, type(e).__name__, e)
        raise
    except BaseException as e:      # KeyboardInterrupt, SystemExit: not a disk problem
        logger.critical("Saving the checkpoint file %s was interrupted (%s): the partly written "
                        "temporary file was removed and %s.", path, type(e).__name__,
                        "the file was not written" if not os.path.exists(path) else
                        "the file holds its previous content")
        raise


# NOTE: [Checkpoint temporary files]
# A save writes ``<file>.<pid>-<random>.tmp`` beside the file and renames it into place,
# so a reader never sees a half-written checkpoint and concurrent saves do not collide.
# A process killed mid-write (SIGKILL, power loss) cannot remove its temporary file, so
# every save first removes the ones of its path whose writer is gone: another process
# id that no longer runs, or this process's own that no save is writing any more.
_TMP_NAME = re.compile(r"\.(?:(\d+)-)?[a-z0-9_]{8}\.tmp")
_writing = set()                    # temporary files this process's saves are writing
_writing_lock = threading.Lock()


def _write_atomic(path, write):
    """Write through a temporary file in the same folder, rename it into place, make it
    read-only: a reader never sees a half-written checkpoint."""
    folder, base = os.path.split(path)
    _remove_stale_temporaries(folder, base)
    with _writing_lock:             # a concurrent save's clean-up must not take it for stale
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f"{base}.{os.getpid()}-", suffix=".tmp")
        _writing.add(tmp)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    finally:
        with _writing_lock:
            _writing.discard(tmp)
    os.chmod(path, stat.S_IRUSR)


def _remove_stale_temporaries(folder, base):
    """Remove ``base``'s temporary files left by saves that were killed (see NOTE:
    [Checkpoint temporary files])."""
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return
    for name in names:
        match = name.startswith(base) and _TMP_NAME.fullmatch(name, len(base))
        if not match:
            continue
        tmp = os.path.join(folder, name)
        if _writer_alive(match.group(1), tmp):
            continue
        try:
            os.remove(tmp)
            logger.warning("For 'save_checkpoint', removed %s, the temporary file of a save "
                           "that did not finish.", tmp)
        except OSError:
            pass


def _writer_alive(pid, tmp):
    if pid is None:                 # an older Spore's name: no writer to ask about
        return False
    pid = int(pid)
    if pid == os.getpid():
        with _writing_lock:
            return tmp in _writing
    if os.name != "posix":          # no harmless "does it exist" signal: assume it does
        return True
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except OSError:                 # it exists, owned by another user
        return True
    return True


def _write_ckpt(f, records, crc_check):
    crc = 0
    for name, value in records.items():
        for chunk in _entry_chunks(name, value):
            crc = binascii.crc32(chunk, crc)
            f.write(chunk)
    if crc_check:
        f.write(_CRC_MARK + crc.to_bytes(10, byteorder="big"))


def _entry_chunks(name, value):
    """The bytes of one serialized ``Checkpoint`` per slice, as (prefix, content) pieces;
    parameters over SLICE_SIZE KiB are split along axis 0 (``numpy.array_split``), each
    slice carrying the full dims."""
    if isinstance(value, str):
        yield proto.encode_entry(name, [0], _STR_TYPE, _str_content(value))
        return
    tensor_type = D.dtype_of(value.dtype).name
    count = -(-value.nbytes // (SLICE_SIZE * 1024)) if value.nbytes > SLICE_SIZE * 1024 else 1
    pieces = np.array_split(value, count) if count > 1 else [value]
    for piece in pieces:
        content = _byte_view(piece)
        yield proto.entry_prefix(name, value.shape, tensor_type, len(content))
        yield content


def _byte_view(array):
    """C-order bytes of ``array`` as a uint8 array (no copy when already contiguous)."""
    return np.ascontiguousarray(array).reshape(-1).view(np.uint8)


def _str_content(text):
    """NumPy's unicode layout: UTF-32-LE, at least one (NUL) character."""
    return (text or "\0").encode("utf-32-le")


def _safetensors_bytes(records, crc_check):
    arrays = {}
    for name, value in records.items():
        if isinstance(value, str):
            raise ValueError(f"For 'save_checkpoint', the safetensors format cannot store the "
                             f"string entry '{name}'.")
        arrays[name] = value
    if not arrays:
        return safetensors.encode({})
    metadata = {"format": "ms"}
    if crc_check:
        metadata["crc_num"] = str(_safetensors_crc(arrays))
    return safetensors.encode(arrays, metadata)


def _safetensors_crc(arrays):
    crc = 0
    for name in sorted(arrays):
        crc = binascii.crc32(name.encode("utf-8"), crc)
        crc = binascii.crc32(_byte_view(arrays[name]), crc)
    return crc


class _AsyncWriter:
    """Background saves, one at a time; an error is raised by the next ``wait``."""

    def __init__(self):
        self._thread = None
        self._error = None

    def running(self):
        return self._thread is not None and self._thread.is_alive()

    def submit(self, *args):
        self.wait()
        self._thread = threading.Thread(target=self._run, args=args, name="asyn_save_ckpt")
        self._thread.start()

    def _run(self, *args):
        try:
            _write_records(*args)
        except BaseException as e:  # noqa: BLE001 - handed to the caller by wait()
            self._error = e

    def wait(self):
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        error, self._error = self._error, None
        if error is not None:
            raise error


_async_writer = _AsyncWriter()


def async_ckpt_thread_status():
    """Whether a checkpoint saved with ``async_save=True`` is still being written
    (MindSpore deprecated it in 2.5 and still offers it)."""
    return _async_writer.running()


def wait_async_save():
    """Block until a pending ``async_save`` has finished (raising its error, if any)."""
    _async_writer.wait()


# =============================================================================== loading
def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                    dec_key=None, dec_mode="AES-GCM", specify_prefix=None, choice_func=None,
                    crc_check=False, remove_redundancy=False, format="ckpt"):
    """Load a checkpoint file into a dict name -> Parameter (string entries as ``str``).

    Args:
        ckpt_file_name (str): a ``.ckpt`` file (or ``.safetensors`` with that format; a
            ``BytesIO`` is accepted for safetensors).
        net (Cell): also load the parameters into this network.
        strict_load (bool): with ``net``: refuse dtype conversions.
        filter_prefix (Union[str, list, tuple]): drop names starting with these
            (deprecated in MindSpore in favour of ``choice_func``).
        specify_prefix (Union[str, list, tuple]): keep only names starting with these.
        choice_func (Callable[[str], bool]): keep the names it accepts (used when neither
            prefix argument is given).
        dec_key (bytes): decrypt a file ``save_checkpoint`` (or MindSpore) encrypted with
            this key (needs the ``crypto`` extra).
        dec_mode (str): ``"AES-GCM"``, ``"AES-CBC"`` or ``"SM4-CBC"``, as it was written.
        crc_check (bool): verify the CRC trailer written by ``crc_check=True``; the only
            check that detects a ``.ckpt`` file cut exactly between two entries (which is
            a valid shorter file) or changed tensor bytes.
        format (str): ``"ckpt"`` or ``"safetensors"``.

    Raises:
        ValueError: the file is missing, empty, truncated, corrupt or crafted (the
            message names the file, the parameter and the problem), its CRC does not
            match, or nothing is left after filtering; the key or mode does not decrypt
            it.
    """
    specify_prefix = _check_prefix(specify_prefix)
    filter_prefix = _check_prefix(filter_prefix)
    for name, value, types in (("dec_key", dec_key, (type(None), bytes)),
                               ("dec_mode", dec_mode, str), ("crc_check", crc_check, bool),
                               ("remove_redundancy", remove_redundancy, bool)):
        _check_type("load_checkpoint", name, value, types)
    cipher = _check_encryption("load_checkpoint", "dec", format, dec_key, dec_mode)
    source = _check_file(ckpt_file_name, format)
    keep = _name_filter(specify_prefix, filter_prefix, choice_func)
    if format == "ckpt":
        records = _read_ckpt(source, crc_check, cipher)
    else:
        records = _read_safetensors(source, crc_check)
    parameter_dict = {name: _to_parameter(name, value)
                      for name, value in records.items() if keep(name)}
    if not parameter_dict:
        raise _empty_error(source, records, specify_prefix, filter_prefix, choice_func)
    if net is not None:
        load_param_into_net(net, parameter_dict, strict_load, remove_redundancy)
    return parameter_dict


class ParamDictFuture:
    """What ``load_checkpoint_async`` returns; ``result()`` waits for the dict."""

    def __init__(self, executor, future):
        self._executor = executor
        self._future = future

    def result(self):
        try:
            return self._future.result()
        finally:
            self._executor.shutdown(wait=False)


def load_checkpoint_async(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                          dec_key=None, dec_mode="AES-GCM", specify_prefix=None,
                          choice_func=None):
    """``load_checkpoint`` in a background thread; call ``.result()`` on the returned object."""
    format = "safetensors" if ckpt_file_name.endswith(".safetensors") else "ckpt"
    executor = ThreadPoolExecutor(max_workers=1)
    future = executor.submit(load_checkpoint, ckpt_file_name, net, strict_load, filter_prefix,
                             dec_key, dec_mode, specify_prefix, choice_func, format=format)
    return ParamDictFuture(executor, future)


def _check_prefix(prefix):
    if prefix is None:
        return None
    if not isinstance(prefix, (str, list, tuple)):
        raise TypeError(f"For 'load_checkpoint', the type of 'specify_prefix' or 'filter_prefix' "
                        f"must be string, list[string] or tuple[string], but got "
                        f"{str(type(prefix))}.")
    prefix = (prefix,) if isinstance(prefix, str) else tuple(prefix)
    if not prefix:
        raise ValueError("For 'load_checkpoint', the argument 'specify_prefix' or 'filter_prefix' "
                         "can't be empty when 'specify_prefix' or 'filter_prefix' is list or "
                         "tuple.")
    for index, pre in enumerate(prefix):
        if not isinstance(pre, str):
            raise TypeError(f"For 'load_checkpoint', when 'specify_prefix' or 'filter_prefix' is "
                            f"list or tuple, the element in it must be string, but got "
                            f"{str(type(pre))} at index {index}.")
        if pre == "":
            raise ValueError("For 'load_checkpoint', the value of 'specify_prefix' or "
                             "'filter_prefix' can't include ''.")
    return prefix


def _check_file(file, format):
    if format not in _FORMATS:
        raise ValueError("For 'load_checkpoint', the checkpoint file should end with '.ckpt' or "
                         "'.safetensors', please input the correct 'format'.")
    if isinstance(file, io.BytesIO):
        if format == "ckpt":
            raise TypeError("ckpt don't support BytesIO as input type, please change to "
                            "safetensors.")
        return file
    if not isinstance(file, str):
        raise TypeError(f"For 'load_checkpoint', the argument 'ckpt_file_name' must be string, "
                        f"but got {type(file)}.")
    if not file.endswith(format):
        raise ValueError(f"For 'load_checkpoint', the checkpoint file format must same with "
                         f"'format', but got file_name:'{file}', format:'{format}'")
    path = os.path.realpath(file)
    if not os.path.exists(path):
        raise ValueError(f"For 'load_checkpoint', the checkpoint file: {path} does not exist, "
                         f"please check whether the 'ckpt_file_name' is correct.")
    return path


def _name_filter(specify_prefix, filter_prefix, choice_func):
    for arg, value in (("specify_prefix", specify_prefix), ("filter_prefix", filter_prefix)):
        if value:
            logger.warning("For load_checkpoint, this parameter `%s` will be deprecated, please "
                           "use `choice_func` instead.", arg)
    use_choice = specify_prefix is None and filter_prefix is None and choice_func is not None

    def keep(name):
        if specify_prefix and not name.startswith(specify_prefix):
            return False
        if filter_prefix and name.startswith(filter_prefix):
            return False
        return not use_choice or bool(choice_func(name))
    return keep


def _empty_error(source, records, specify_prefix, filter_prefix, choice_func):
    """Nothing to return: say whether the file holds no parameters or the filters given
    removed them all (MindSpore blames the prefixes even when none was given)."""
    if not records:
        where = "the BytesIO" if isinstance(source, io.BytesIO) else f"the checkpoint file {source}"
        return ValueError(f"For 'load_checkpoint', {where} holds no parameters (it is empty, "
                          f"or was cut off before its first entry).")
    if specify_prefix is None and filter_prefix is None:
        return ValueError(f"For 'load_checkpoint', the loaded parameter dict is empty: "
                          f"'choice_func' rejected all {len(records)} parameters of the file.")
    return ValueError("The loaded parameter dict is empty after filter or specify, please "
                      "check whether 'filter_prefix' or 'specify_prefix' are set correctly.")


def _to_parameter(name, value):
    return value if isinstance(value, str) else Parameter(value, name=name)


# ------------------------------------------------------------------ .ckpt reading
def _read_ckpt(path, crc_check, cipher=None):
    """``{tag: ndarray | str}``; consecutive entries with the same tag are one parameter."""
    with open(path, "rb") as f:
        content = f.read()
    if cipher:
        content = _decrypt_ckpt(path, content, cipher)
    content = _strip_crc(path, content, crc_check)
    try:
        entries = proto.decode(content)
    except proto.DecodeError as e:
        hint = (" It is encrypted: pass the 'dec_key' and 'dec_mode' it was saved with."
                if not cipher and _crypto.is_encrypted(content) else "")
        raise ValueError(f"Failed to read the checkpoint file {path}. The file may be corrupted, "
                         f"and the content cannot be parsed: {e}.{hint}") from None
    records = {}
    for group in _group_slices(entries):
        first = group[0]
        data = first.content if len(group) == 1 else b"".join(e.content for e in group)
        records[first.tag] = _entry_value(path, first, data)
    return records


def _decrypt_ckpt(path, content, cipher):
    try:
        return _crypto.decrypt(content, *cipher)
    except _crypto.CipherError as e:
        what = ("The file may be encrypted or tempered with, please pass in the correct "
                "'dec_key' or check the file integrity" if _crypto.is_encrypted(content) else
                "It is not an encrypted checkpoint file")
        raise ValueError(f"Failed to read the checkpoint file {path}. {what} ({e})") from None


def _strip_crc(path, content, crc_check):
    has_crc = content[-_CRC_TRAILER:-10] == _CRC_MARK
    if crc_check and not has_crc:
        logger.warning("For 'load_checkpoint', the ckpt file do not contain the crc code, please "
                       "check the file.")
    if not has_crc:
        return content
    expected = int.from_bytes(content[-10:], byteorder="big")
    content = content[:-_CRC_TRAILER]
    if crc_check and binascii.crc32(content) != expected:
        raise ValueError(f"For 'load_checkpoint', the crc check is failed, please check whether "
                         f"the ckpt file is damaged: {path}.")
    return content


def _group_slices(entries):
    group = []
    for entry in entries:
        if group and entry.tag != group[0].tag:
            yield group
            group = []
        group.append(entry)
    if group:
        yield group


def _entry_value(path, entry, data):
    def fail(problem):
        return ValueError(f"For 'load_checkpoint', failed to load the checkpoint file {path}: "
                          f"parameter '{entry.tag}' {problem}.")
    if entry.tensor_type == _STR_TYPE:
        try:
            return bytes(data).decode("utf-32-le").rstrip("\0")
        except UnicodeDecodeError:
            raise fail("is a string entry whose content is not valid UTF-32") from None
    dtype = _NP_BY_TYPE.get(entry.tensor_type)
    if dtype is None:
        raise fail(f"has the unsupported tensor_type '{entry.tensor_type}'")
    if len(entry.dims) > safetensors.MAX_RANK:
        raise fail(f"has {len(entry.dims)} dimensions; at most {safetensors.MAX_RANK} are "
                   f"supported")
    shape = tuple(entry.dims)
    if any(d < 0 for d in shape):
        raise fail(f"has the invalid shape {shape}")
    need = math.prod(shape) * dtype.itemsize      # exact: a crafted shape cannot wrap around
    if len(data) != need:
        raise fail(f"has {len(data)} bytes of data, but its shape {shape} and dtype "
                   f"{entry.tensor_type} need {need} (the file is truncated or corrupt)")
    return np.frombuffer(data, dtype).reshape(shape)


# ------------------------------------------------------------------ safetensors reading
def _read_safetensors(source, crc_check):
    if isinstance(source, io.BytesIO):
        content, path = source.getvalue(), "<BytesIO>"
    else:
        with open(source, "rb") as f:
            content, path = f.read(), source
    try:
        metadata, arrays = safetensors.decode(content)
    except safetensors.FormatError as e:
        raise ValueError(f"Failed to read the checkpoint file {path}. The file may be corrupted, "
                         f"and the content cannot be parsed: {e}.") from None
    if crc_check:
        _check_safetensors_crc(path, metadata, arrays)
    return {name: arrays[name] for name in sorted(arrays)}


def _check_safetensors_crc(path, metadata, arrays):
    crc = metadata.get("crc_num")
    if crc is None:
        logger.warning("For 'load_checkpoint', the safetensors file do not contain the crc code, "
                       "please check the file.")
    elif not (crc.isascii() and crc.isdigit()) or int(crc) != _safetensors_crc(arrays):
        raise ValueError(f"For 'load_checkpoint', the crc check has failed. Please check whether "
                         f"the ckpt file is damaged: {path}.")


# =============================================================================== into a net
def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """Copy ``parameter_dict`` (name -> Parameter) into the parameters of ``net``.

    Returns:
        tuple ``(param_not_load, ckpt_not_load)``: names of the net's parameters that were
        not in the dict, and dict keys that matched no parameter of the net.

    Raises:
        RuntimeError: a shape differs, or a dtype differs and cannot be converted
            (float <-> float and int <-> int convert with a warning unless ``strict_load``).
    """
    _check_load_param_args(net, parameter_dict, strict_load, remove_redundancy)
    param_not_load, ckpt_not_load = [], list(parameter_dict)
    for _, param in net.parameters_and_names():
        new = parameter_dict.get(param.name)
        if new is None:
            if not param.name.startswith("accu_grads"):
                param_not_load.append(param.name)
            continue
        if isinstance(new, str):
            continue
        _update_param(param, new, strict_load)
        ckpt_not_load.remove(param.name)
    if param_not_load and not strict_load:
        _load_with_prefix(net, parameter_dict, param_not_load, ckpt_not_load, strict_load)
    if param_not_load:
        logger.warning("For 'load_param_into_net', %d parameters in the 'net' are not loaded, "
                       "because they are not in the 'parameter_dict', please check whether the "
                       "network structure is consistent when training and loading checkpoint.",
                       len(param_not_load))
        logger.warning("%s are not loaded.", param_not_load)
    return param_not_load, ckpt_not_load


def _check_load_param_args(net, parameter_dict, strict_load, remove_redundancy):
    if not isinstance(net, Cell):
        raise TypeError(f"For 'load_param_into_net', the argument 'net' should be a Cell, but got "
                        f"{type(net)}.")
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"For 'load_param_into_net', the argument 'parameter_dict' should be a "
                        f"dict, but got {type(parameter_dict)}.")
    for key, value in parameter_dict.items():
        if not isinstance(key, str) or not isinstance(value, (Parameter, str)):
            raise TypeError(f"For 'parameter_dict', the element in the argument 'parameter_dict' "
                            f"should be a 'str' and 'Parameter' , but got {type(key)} and "
                            f"{type(value)}.")
    _check_type("load_param_into_net", "strict_load", strict_load, bool)
    _check_type("load_param_into_net", "remove_redundancy", remove_redundancy, bool)
    if remove_redundancy:
        raise TypeError("The deduplication feature for loading checkpoint can only be used in "
                        "parallel scenarios, but got stand_alone.")


def _update_param(param, new, strict_load):
    """Copy ``new`` into ``param``: trailing size-1 axes may be dropped, float<->float and
    int<->int dtypes are converted unless ``strict_load``; anything else is an error."""
    value = new.asnumpy()
    if value.shape != param.shape:
        if not _drops_trailing_ones(value.shape, param.shape):
            logger.critical("Failed to combine the net and the parameters for param %s.",
                            param.name)
            raise RuntimeError(
                f"For 'load_param_into_net', {param.name} in the argument 'net' should have the "
                f"same shape as {param.name} in the argument 'parameter_dict'. But got its shape "
                f"{param.shape} in the argument 'net' and shape {value.shape} in the argument "
                f"'parameter_dict'.May you need to check whether the checkpoint you loaded is "
                f"correct or the batch size and so on in the 'net' and 'parameter_dict' are same.")
        value = value.reshape(param.shape)
    if new.dtype is not param.dtype and not _convertible(param, new, strict_load):
        logger.critical("Failed to combine the net and the parameters for param %s.", param.name)
        raise RuntimeError(
            f"For 'load_param_into_net', {param.name} in the argument 'net' should have the same "
            f"type as {param.name} in the argument 'parameter_dict'. but got its type "
            f"{param.dtype} in the argument 'net' and type {new.dtype} in the argument "
            f"'parameter_dict'.May you need to check whether the checkpoint you loaded is "
            f"correct.")
    param.set_data(value)


def _drops_trailing_ones(shape, target):
    n = len(target)
    return len(shape) > n and shape[:n] == target and all(s == 1 for s in shape[n:])


def _convertible(param, new, strict_load):
    pair = {param.dtype, new.dtype}
    if strict_load or not (pair <= set(D.float_type) or pair <= set(D.int_type)):
        return False
    logger.warning("The type of %s:%s in 'parameter_dict' is different from the type of it in "
                   "'net':%s, then the type convert from %s to %s in the network. May consume "
                   "additional memory and time", new.name, new.dtype, param.dtype, new.dtype,
                   param.dtype)
    return True


def _load_with_prefix(net, parameter_dict, param_not_load, ckpt_not_load, strict_load):
    """Checkpoints saved from a wrapper (``network.fc.weight``) load into the bare net
    (``fc.weight``): find the prefix from a key ending with a missing name, load every
    missing parameter under it, and repeat while that finds a new prefix."""
    tried = set()
    while param_not_load:
        prefix = _find_prefix(parameter_dict, param_not_load, tried)
        if prefix is None:
            return
        tried.add(prefix)
        logger.warning("For 'load_param_into_net', remove parameter prefix name: %s, continue "
                       "to load.", prefix)
        for _, param in net.parameters_and_names():
            key = prefix + param.name
            if param.name in param_not_load and isinstance(parameter_dict.get(key), Parameter):
                _update_param(param, parameter_dict[key], strict_load)
                param_not_load.remove(param.name)
                if key in ckpt_not_load:
                    ckpt_not_load.remove(key)


def _find_prefix(parameter_dict, missing, tried):
    for name in missing:
        for key in parameter_dict:
            if key.endswith(name) and len(key) > len(name) and key[:-len(name)] not in tried:
                return key[:-len(name)]
    return None


# =============================================================================== conversion
def ckpt_to_safetensors(file_path, save_path=None, name_map=None, file_name_regex=None,
                        processes_num=1):
    """Convert a ``.ckpt`` file (or every ``rank*/`` folder's ``.ckpt`` files under a
    directory) to safetensors, next to the source or under ``save_path``."""
    _convert(file_path, save_path, name_map, file_name_regex, "ckpt", "safetensors")


def safetensors_to_ckpt(file_path, save_path=None, name_map=None, file_name_regex=None,
                        processes_num=1):
    """Convert a ``.safetensors`` file (or a directory of ``rank*/`` folders) to ``.ckpt``."""
    _convert(file_path, save_path, name_map, file_name_regex, "safetensors", "ckpt")


def _convert(file_path, save_path, name_map, file_name_regex, src, dst):
    func = "ckpt_to_safetensors" if dst == "safetensors" else "safetensors_to_ckpt"
    if not os.path.isdir(file_path) and not os.path.isfile(file_path):
        raise ValueError(f"For {func}, the input path must be a valid path or file, but got "
                         f"{file_path}")
    if save_path and os.path.splitext(save_path)[1]:
        raise ValueError(f"For {func}, the save_path must be a directory, but got '{save_path}'")
    if name_map is not None and not isinstance(name_map, dict):
        raise ValueError(f"For {func}, the type of 'name_map' must be a directory, but got "
                         f"'{type(name_map)}'")
    if os.path.isdir(file_path):
        tasks = _directory_tasks(func, file_path, save_path, file_name_regex, src)
    else:
        tasks = [_file_task(func, file_path, save_path, file_name_regex, src)]
    for source, target_dir in tasks:
        _convert_file(source, target_dir, name_map, src, dst)


def _file_task(func, file_path, save_path, file_name_regex, src):
    if not file_path.endswith(f".{src}"):
        raise ValueError(f"For {func}, the input file must be a .{src} file, but got {file_path}")
    if file_name_regex is not None and not re.findall(file_name_regex, file_path):
        raise ValueError(f"For {func}, the input file does not match the regular expression.")
    return file_path, save_path or os.path.dirname(file_path)


def _directory_tasks(func, file_path, save_path, file_name_regex, src):
    ranks = sorted(d for d in os.listdir(file_path)
                   if d.startswith("rank") and os.path.isdir(os.path.join(file_path, d)))
    if not ranks:
        raise ValueError(f"For '{func}', no directories starting with 'rank' found in "
                         f"{file_path}.")
    tasks = []
    for rank in ranks:
        folder = os.path.join(file_path, rank)
        target = os.path.join(save_path, rank) if save_path else folder
        for name in sorted(os.listdir(folder)):
            if name.endswith(f".{src}") and (file_name_regex is None or
                                              re.search(file_name_regex, name)):
                tasks.append((os.path.join(folder, name), target))
    return tasks


def _convert_file(source, target_dir, name_map, src, dst):
    os.makedirs(target_dir, exist_ok=True)
    params = load_checkpoint(source, format=src)
    if name_map:
        params = {name_map.get(k, k): v for k, v in params.items()}
    base = os.path.basename(source)[:-len(src)] + dst
    save_checkpoint(params, os.path.join(target_dir, base), format=dst)
