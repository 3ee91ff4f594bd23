"""Checkpoints: round trips in both formats, MindSpore's golden files, errors on bad files."""
import binascii
import io
import json
import os
import pathlib
import re
import stat
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, strategies as st

import spore as ms
from spore import nn
from spore.train import serialization as S
from spore.train import _ckpt_proto as proto
from tests.data.golden_ckpt import APPEND as GOLDEN_APPEND, golden_values

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
MS_PYTHON = next((p for p in map(pathlib.Path, (os.environ.get("SPORE_MS_PYTHON", ""),
                                                 "/work/msref/bin/python",
                                                 "/work/venvs/ms/bin/python"))
                  if str(p) != "." and p.exists()), pathlib.Path("/nonexistent"))


# ------------------------------------------------------------------ small nets (own params)
class Leaf(nn.Cell):
    """A cell holding named parameters, so these tests do not depend on nn layers."""

    def __init__(self, **arrays):
        super().__init__()
        for name, value in arrays.items():
            setattr(self, name, ms.Parameter(value, requires_grad=value.dtype.kind == "f"))

    def construct(self, x):
        return x


class DenseBN(nn.Cell):
    """Parameter names of MindSpore's Dense(3, 4) + BatchNorm1d(4) inside a parent."""

    def __init__(self, fill=0.0):
        super().__init__()
        z = lambda *s: np.full(s, fill, np.float32)  # noqa: E731
        self.fc = Leaf(weight=z(4, 3), bias=z(4))
        self.bn = Leaf(moving_mean=z(4), moving_variance=z(4), gamma=z(4), beta=z(4))

    def construct(self, x):
        return x


def golden_net():
    net = DenseBN()
    for p in net.get_parameters():
        p.set_data(ms.Tensor(golden_values()[p.name]))
    return net


ALL_DTYPES = [np.float16, np.float32, np.float64, ml_dtypes.bfloat16, np.int8, np.int16,
              np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.bool_]


def mixed_net():
    rng = np.random.default_rng(0)
    arrays = {f"p{i}": (rng.standard_normal((2, 3)) * 50).astype(dt)
              for i, dt in enumerate(ALL_DTYPES)}
    arrays["scalar"] = np.array(3.25, np.float32)
    arrays["empty"] = np.zeros((0, 4), np.float32)
    return Leaf(**arrays)


def assert_same_params(loaded, net):
    assert list(loaded) == [p.name for p in net.get_parameters()]
    for p in net.get_parameters():
        q = loaded[p.name]
        assert isinstance(q, ms.Parameter) and q.name == p.name
        assert q.dtype is p.dtype and q.shape == p.shape
        np.testing.assert_array_equal(q.asnumpy(), p.asnumpy())


# ------------------------------------------------------------------ round trips
@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
def test_round_trip_every_dtype(tmp_path, fmt):
    net = mixed_net()
    ms.save_checkpoint(net, str(tmp_path / "m"), format=fmt)
    loaded = ms.load_checkpoint(str(tmp_path / f"m.{fmt}"), format=fmt)
    if fmt == "safetensors":       # safetensors returns the keys sorted
        assert list(loaded) == sorted(loaded)
        loaded = {p.name: loaded[p.name] for p in net.get_parameters()}
    assert_same_params(loaded, net)
    assert all(p.requires_grad for p in loaded.values())


def test_saved_file_is_read_only_and_can_be_overwritten(tmp_path):
    path = tmp_path / "w.ckpt"
    ms.save_checkpoint(Leaf(a=np.ones(2, np.float32)), str(path))
    assert stat.S_IMODE(os.stat(path).st_mode) == stat.S_IRUSR
    ms.save_checkpoint(Leaf(a=np.full(3, 2.0, np.float32)), str(path))
    np.testing.assert_array_equal(ms.load_checkpoint(str(path))["a"].asnumpy(), [2, 2, 2])
    assert sorted(os.listdir(tmp_path)) == ["w.ckpt"]     # no temporary file left behind


def test_failed_write_leaves_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "w.ckpt"
    ms.save_checkpoint(Leaf(a=np.ones(2, np.float32)), str(path))

    def broken(name, value):
        raise OSError("disk full")
        yield
    monkeypatch.setattr(S, "_entry_chunks", broken)
    with pytest.raises(OSError, match="disk full"):
        ms.save_checkpoint(Leaf(a=np.zeros(2, np.float32)), str(path))
    assert sorted(os.listdir(tmp_path)) == ["w.ckpt"]
    np.testing.assert_array_equal(ms.load_checkpoint(str(path))["a"].asnumpy(), [1, 1])


def test_append_dict_types(tmp_path):
    append = {"i": 3, "f": 1.5, "b": True, "s": "héllo", "e": "", "t": ms.Tensor([1, 2], ms.int8)}
    ms.save_checkpoint(Leaf(a=np.ones(1, np.float32)), str(tmp_path / "a.ckpt"),
                       append_dict=append)
    d = ms.load_checkpoint(str(tmp_path / "a.ckpt"))
    assert list(d) == ["a", "i", "f", "b", "s", "e", "t"]
    assert (d["i"].dtype, d["i"].shape, d["i"].item()) == (ms.int64, (), 3)
    assert (d["f"].dtype, d["f"].item()) == (ms.float32, 1.5)
    assert (d["b"].dtype, d["b"].item()) == (ms.bool_, True)
    assert d["s"] == "héllo" and d["e"] == ""
    assert d["t"].dtype is ms.int8 and d["t"].asnumpy().tolist() == [1, 2]


def test_string_entry_layout_is_numpy_unicode(tmp_path):
    ms.save_checkpoint([], str(tmp_path / "s.ckpt"), append_dict={"k": "abc"})
    raw = (tmp_path / "s.ckpt").read_bytes()
    entry, = proto.decode(raw)
    assert (entry.tag, entry.dims, entry.tensor_type) == ("k", [0], "str")
    assert bytes(entry.content) == np.array("abc").tobytes() == b"a\0\0\0b\0\0\0c\0\0\0"


def test_save_obj_forms(tmp_path):
    w = ms.Parameter(np.arange(3, dtype=np.float32), name="w")
    b = ms.Parameter(np.ones(2, np.float32), name="b")
    forms = {
        "params": [w, b],
        "dicts": [{"name": "w", "data": w},
                  {"name": "b", "data": ms.Tensor(np.ones(2, np.float32))}],
        "mapping": {"w": w, "b": b},
    }
    for key, obj in forms.items():
        ms.save_checkpoint(obj, str(tmp_path / f"{key}.ckpt"))
        d = ms.load_checkpoint(str(tmp_path / f"{key}.ckpt"))
        assert list(d) == ["w", "b"]
        np.testing.assert_array_equal(d["w"].asnumpy(), [0, 1, 2])
    reloaded = ms.load_checkpoint(str(tmp_path / "params.ckpt"))
    ms.save_checkpoint(reloaded, str(tmp_path / "again.ckpt"))
    assert (tmp_path / "again.ckpt").read_bytes() == (tmp_path / "params.ckpt").read_bytes()


@pytest.mark.parametrize("obj, match", [
    (ms.Tensor([1.0]), "must be nn.Cell, list or dict"),
    ([ms.Tensor([1.0])], "list of Parameter"),
    ([{"name": 1, "data": ms.Tensor([1.0])}], "name in dict should be string"),
    ([{"name": "a", "data": 1.0}], "data in dict should be parameter"),
    ({1: ms.Tensor([1.0])}, "key should be str"),
])
def test_bad_save_obj(tmp_path, obj, match):
    with pytest.raises(TypeError, match=match):
        ms.save_checkpoint(obj, str(tmp_path / "x.ckpt"))


def test_bad_save_arguments(tmp_path):
    net = Leaf(a=np.ones(1, np.float32))
    with pytest.raises(ValueError, match="format must be 'safetensors' or 'ckpt'"):
        ms.save_checkpoint(net, str(tmp_path / "x"), format="npz")
    with pytest.raises(TypeError, match="append_info"):
        ms.save_checkpoint(net, str(tmp_path / "x"), append_dict={"a": [1]})
    with pytest.raises(IsADirectoryError):
        ms.save_checkpoint(net, str(tmp_path))
    with pytest.raises(ValueError, match="string entry 's'"):
        ms.save_checkpoint(net, str(tmp_path / "x"), append_dict={"s": "t"}, format="safetensors")


def test_choice_func_on_save_and_prefix_filters_on_load(tmp_path, capsys):
    net = golden_net()
    ms.save_checkpoint(net, str(tmp_path / "fc.ckpt"), choice_func=lambda n: n.startswith("fc"))
    assert list(ms.load_checkpoint(str(tmp_path / "fc.ckpt"))) == ["fc.weight", "fc.bias"]
    path = str(tmp_path / "all.ckpt")
    ms.save_checkpoint(net, path)
    bn = ["bn.moving_mean", "bn.moving_variance", "bn.gamma", "bn.beta"]
    assert list(ms.load_checkpoint(path, filter_prefix="fc")) == bn
    specified = ms.load_checkpoint(path, specify_prefix=["bn.g", "fc.b"])
    assert list(specified) == ["fc.bias", "bn.gamma"]
    assert list(ms.load_checkpoint(path, choice_func=lambda n: "moving" in n)) == bn[:2]
    err = capsys.readouterr().err
    assert "this parameter `filter_prefix` will be deprecated" in err
    assert "this parameter `specify_prefix` will be deprecated" in err
    with pytest.raises(ValueError, match="dict is empty after filter or specify, please check "
                                         "whether 'filter_prefix'"):
        ms.load_checkpoint(path, filter_prefix=["fc", "bn"])
    with pytest.raises(ValueError, match="'choice_func' rejected all 6 parameters") as info:
        ms.load_checkpoint(path, choice_func=lambda n: False)
    assert "prefix" not in str(info.value)
    with pytest.raises(ValueError, match="can't include ''"):
        ms.load_checkpoint(path, filter_prefix=["fc", ""])


def test_load_with_net_loads_parameters(tmp_path):
    path = str(tmp_path / "g.ckpt")
    ms.save_checkpoint(golden_net(), path)
    fresh = DenseBN(fill=9.0)
    d = ms.load_checkpoint(path, net=fresh)
    assert set(d) == set(golden_values())
    for p in fresh.get_parameters():
        np.testing.assert_array_equal(p.asnumpy(), golden_values()[p.name])


def test_large_parameters_are_split_into_slices(tmp_path, monkeypatch):
    monkeypatch.setattr(S, "SLICE_SIZE", 1)           # 1 KiB slices instead of 512 MiB
    big = np.arange(10 * 300, dtype=np.float32).reshape(10, 300)     # 11.7 KiB -> 12 slices
    ms.save_checkpoint(Leaf(big=big, small=np.ones(3, np.float32)), str(tmp_path / "b.ckpt"))
    entries = proto.decode((tmp_path / "b.ckpt").read_bytes())
    tags = [e.tag for e in entries]
    assert tags == ["big"] * 12 + ["small"]    # numpy.array_split(big, 12): 10 rows, 2 empty
    assert all(e.dims == [10, 300] for e in entries[:12])
    assert [len(e.content) for e in entries[:12]] == [1200] * 10 + [0, 0]
    np.testing.assert_array_equal(ms.load_checkpoint(str(tmp_path / "b.ckpt"))["big"].asnumpy(),
                                  big)


def test_async_save(tmp_path):
    net = Leaf(a=np.arange(4, dtype=np.float32))
    ms.save_checkpoint(net, str(tmp_path / "a.ckpt"), async_save=True)
    net.a.set_data(ms.Tensor(np.zeros(4, np.float32)))      # the save took a snapshot
    S.wait_async_save()
    np.testing.assert_array_equal(ms.load_checkpoint(str(tmp_path / "a.ckpt"))["a"].asnumpy(),
                                  [0, 1, 2, 3])
    with pytest.raises(ValueError, match="'process' or 'thread'"):
        ms.save_checkpoint(net, str(tmp_path / "a.ckpt"), async_save="fork")


# ------------------------------------------------------------------ CRC
def test_crc_trailer_layout_and_check(tmp_path):
    plain, crc = str(tmp_path / "p.ckpt"), str(tmp_path / "c.ckpt")
    ms.save_checkpoint(golden_net(), plain)
    ms.save_checkpoint(golden_net(), crc, crc_check=True)
    body, raw = pathlib.Path(plain).read_bytes(), pathlib.Path(crc).read_bytes()
    assert raw == body + b"crc_num" + binascii.crc32(body).to_bytes(10, "big")
    assert set(ms.load_checkpoint(crc, crc_check=True)) == set(golden_values())


def test_crc_detects_a_changed_byte(tmp_path, capsys):
    path = tmp_path / "c.ckpt"
    ms.save_checkpoint(golden_net(), str(path), crc_check=True)
    raw = bytearray(path.read_bytes())
    raw[40] ^= 0x01                     # inside fc.weight's content: the structure stays valid
    os.chmod(path, stat.S_IWUSR | stat.S_IRUSR)
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="crc check is failed"):
        ms.load_checkpoint(str(path), crc_check=True)
    assert ms.load_checkpoint(str(path))["fc.weight"].shape == (4, 3)   # no check requested
    ms.save_checkpoint(golden_net(), str(tmp_path / "p.ckpt"))
    ms.load_checkpoint(str(tmp_path / "p.ckpt"), crc_check=True)
    assert "do not contain the crc code" in capsys.readouterr().err


# ------------------------------------------------------------------ bad files
def _golden_bytes():
    return (DATA / "golden_dense_bn.ckpt").read_bytes()


def _write(tmp_path, raw, name="bad.ckpt"):
    path = tmp_path / name
    path.write_bytes(raw)
    return str(path)


def test_missing_file(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        ms.load_checkpoint(str(tmp_path / "nope.ckpt"))
    with pytest.raises(ValueError, match="format must same with 'format'"):
        ms.load_checkpoint(str(tmp_path / "nope.safetensors"))


def test_truncated_file_names_the_parameter(tmp_path):
    raw = _golden_bytes()
    cut = raw.index(b"fc.bias") + 20                     # inside fc.bias's entry
    with pytest.raises(ValueError, match=r"corrupted.*parameter 'fc.weight'") as info:
        ms.load_checkpoint(_write(tmp_path, raw[:cut]))
    assert "only" in str(info.value) and "remain" in str(info.value)


def test_wrong_content_size_names_the_parameter(tmp_path):
    content = np.zeros(5, np.float32).tobytes()
    raw = proto.encode_entry("w", [2, 3], "Float32", content)
    with pytest.raises(ValueError, match=r"parameter 'w' has 20 bytes of data, but its shape "
                                         r"\(2, 3\) and dtype Float32 need 24"):
        ms.load_checkpoint(_write(tmp_path, raw))


def test_unknown_tensor_type_names_the_parameter(tmp_path):
    raw = proto.encode_entry("q", [2], "Int4", b"\0")
    with pytest.raises(ValueError, match="parameter 'q' has the unsupported tensor_type 'Int4'"):
        ms.load_checkpoint(_write(tmp_path, raw))


def test_not_a_checkpoint(tmp_path):
    with pytest.raises(ValueError, match="cannot be parsed"):
        ms.load_checkpoint(_write(tmp_path, b"PK\x03\x04 this is a zip file"))


@given(cut=st.integers(1, 445))
def test_every_truncation_is_a_clean_error_or_fewer_params(tmp_path_factory, cut):
    raw = _golden_bytes()
    path = _write(tmp_path_factory.mktemp("t"), raw[:cut])
    try:
        d = ms.load_checkpoint(path)
    except ValueError as e:
        assert "checkpoint file" in str(e)
    else:                                                   # cut exactly between entries
        assert len(d) < 10 and raw[:cut] == b"".join(
            proto.encode_entry(*_entry_fields(e)) for e in proto.decode(raw[:cut]))


def _entry_fields(entry):
    return entry.tag, entry.dims, entry.tensor_type, bytes(entry.content)


@given(pos=st.integers(0, 445), value=st.integers(0, 255))
def test_random_byte_changes_never_crash(tmp_path_factory, pos, value):
    raw = bytearray(_golden_bytes())
    raw[pos] = value
    path = _write(tmp_path_factory.mktemp("c"), bytes(raw))
    try:
        ms.load_checkpoint(path)
    except ValueError:
        pass


# ------------------------------------------------------------------ MindSpore's own files
def test_golden_mindspore_file_loads_exactly():
    d = ms.load_checkpoint(str(DATA / "golden_dense_bn.ckpt"))
    assert list(d) == list(golden_values()) + list(GOLDEN_APPEND)
    for name, expected in golden_values().items():
        assert d[name].dtype is ms.float32 and d[name].name == name
        np.testing.assert_array_equal(d[name].asnumpy(), expected)
    assert (d["epoch_num"].dtype, d["epoch_num"].item()) == (ms.int64, 7)
    assert (d["lr"].dtype, d["lr"].item()) == (ms.float32, 0.125)
    assert (d["use_bn"].dtype, d["use_bn"].item()) == (ms.bool_, True)
    assert d["note"] == "golden ckpt"


def test_golden_crc_and_safetensors_files():
    d = ms.load_checkpoint(str(DATA / "golden_dense_bn_crc.ckpt"), crc_check=True)
    np.testing.assert_array_equal(d["bn.gamma"].asnumpy(), golden_values()["bn.gamma"])
    s = ms.load_checkpoint(str(DATA / "golden_dense_bn.safetensors"), format="safetensors")
    assert list(s) == sorted(golden_values())
    for name, expected in golden_values().items():
        np.testing.assert_array_equal(s[name].asnumpy(), expected)


def test_spore_writes_the_golden_bytes(tmp_path):
    """Same parameters, same append_dict -> byte-identical to MindSpore's files."""
    for name, crc in (("golden_dense_bn.ckpt", False), ("golden_dense_bn_crc.ckpt", True)):
        ms.save_checkpoint(golden_net(), str(tmp_path / name), append_dict=dict(GOLDEN_APPEND),
                           crc_check=crc)
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes()
    ms.save_checkpoint(golden_net(), str(tmp_path / "g.safetensors"), format="safetensors")
    assert (tmp_path / "g.safetensors").read_bytes() == \
        (DATA / "golden_dense_bn.safetensors").read_bytes()


def test_golden_file_into_net(capsys):
    net = DenseBN()
    not_loaded = ms.load_param_into_net(net, ms.load_checkpoint(str(DATA / "golden_dense_bn.ckpt")))
    assert not_loaded == ([], ["epoch_num", "lr", "note", "use_bn"])
    np.testing.assert_array_equal(net.fc.weight.asnumpy(), golden_values()["fc.weight"])


@pytest.mark.skipif(not MS_PYTHON.exists(), reason="the reference MindSpore is not installed")
@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
def test_mindspore_loads_a_spore_file(tmp_path, fmt):
    net = mixed_net()
    append = {"n": 5, "s": "from spore"} if fmt == "ckpt" else None
    crc = fmt == "ckpt"       # MindSpore's safetensors CRC reader fails on bfloat16 itself
    ms.save_checkpoint(net, str(tmp_path / f"spore.{fmt}"), append_dict=append, format=fmt,
                       crc_check=crc)
    script = tmp_path / "read.py"
    script.write_text(
        "import json, sys, mindspore as ms\n"
        f"d = ms.load_checkpoint(sys.argv[1], format='{fmt}', crc_check={crc})\n"
        "out = {k: v if isinstance(v, str) else [str(v.dtype), list(v.shape),\n"
        "       v.astype(ms.float32).asnumpy().ravel().tolist() if str(v.dtype) == 'BFloat16'\n"
        "       else v.asnumpy().astype('float64').ravel().tolist()] for k, v in d.items()}\n"
        "print('RESULT' + json.dumps(out))\n")
    run = subprocess.run([str(MS_PYTHON), str(script), str(tmp_path / f"spore.{fmt}")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    line = [x for x in run.stdout.splitlines() if x.startswith("RESULT")]
    assert line, run.stderr[-2000:]
    got = json.loads(line[0][len("RESULT"):])
    for p in net.get_parameters():
        dtype, shape, values = got[p.name]
        assert (dtype, tuple(shape)) == (str(p.dtype), p.shape)
        np.testing.assert_array_equal(values, p.asnumpy().astype(np.float64).ravel())
    if append:
        assert got["s"] == "from spore" and got["n"][:2] == ["Int64", []]


# ------------------------------------------------------------------ load_param_into_net
def test_load_param_into_net_partial(capsys):
    net = golden_net()
    partial = {"fc.weight": ms.Parameter(np.zeros((4, 3), np.float32), name="fc.weight"),
               "extra": ms.Parameter(np.zeros(1, np.float32), name="extra")}
    result = ms.load_param_into_net(net, partial)
    assert result == (["fc.bias", "bn.moving_mean", "bn.moving_variance", "bn.gamma", "bn.beta"],
                      ["extra"])
    assert not net.fc.weight.asnumpy().any()
    err = capsys.readouterr().err.splitlines()
    assert re.fullmatch(r"\[WARNING\] ME\(\d+:\d+,MainProcess\):\d{4}-\d\d-\d\d-\d\d:\d\d:"
                        r"\d\d\.\d{3}\.\d{3} \[spore/train/serialization\.py:\d+\] For "
                        r"'load_param_into_net', 5 parameters in the 'net' are not loaded, .*",
                        err[0])
    assert err[1].endswith("['fc.bias', 'bn.moving_mean', 'bn.moving_variance', 'bn.gamma', "
                           "'bn.beta'] are not loaded.")


def test_load_param_into_net_shape_and_dtype_errors(capsys):
    net = golden_net()
    bad_shape = {"fc.weight": ms.Parameter(np.zeros((5, 5), np.float32), name="fc.weight")}
    with pytest.raises(RuntimeError, match=r"fc.weight in the argument 'net' should have the same "
                                           r"shape.*\(4, 3\).*\(5, 5\)"):
        ms.load_param_into_net(net, bad_shape)
    assert "[CRITICAL]" in capsys.readouterr().err
    bad_type = {"fc.bias": ms.Parameter(np.zeros(4, np.int32), name="fc.bias")}
    with pytest.raises(RuntimeError, match="should have the same type.*Float32.*Int32"):
        ms.load_param_into_net(net, bad_type)
    half = {"fc.bias": ms.Parameter(np.full(4, 0.5, np.float16), name="fc.bias")}
    with pytest.raises(RuntimeError, match="same type"):
        ms.load_param_into_net(net, half, strict_load=True)
    ms.load_param_into_net(net, half)
    assert net.fc.bias.dtype is ms.float32 and net.fc.bias.asnumpy().tolist() == [0.5] * 4
    assert "type convert from Float16 to Float32" in capsys.readouterr().err
    with pytest.raises(TypeError, match="should be a Cell"):
        ms.load_param_into_net({}, {})
    with pytest.raises(TypeError, match="'str' and 'Parameter'"):
        ms.load_param_into_net(net, {"fc.bias": ms.Tensor([1.0])})


def test_load_param_into_net_trailing_ones_and_prefix(capsys):
    net = golden_net()
    wide = {"fc.bias": ms.Parameter(np.arange(4, dtype=np.float32).reshape(4, 1, 1), name="x")}
    ms.load_param_into_net(net, wide)
    assert net.fc.bias.asnumpy().tolist() == [0, 1, 2, 3]
    wrapped = {f"network.{k}": ms.Parameter(v + 1, name=f"network.{k}")
               for k, v in golden_values().items()}
    result = ms.load_param_into_net(net, wrapped)
    assert result == ([], [])
    np.testing.assert_array_equal(net.bn.beta.asnumpy(), golden_values()["bn.beta"] + 1)
    assert "remove parameter prefix name: network., continue to load." in capsys.readouterr().err


# ------------------------------------------------------------------ safetensors specifics
def test_safetensors_layout_crc_and_bytesio(tmp_path):
    path = tmp_path / "s.safetensors"
    ms.save_checkpoint(golden_net(), str(path), format="safetensors", crc_check=True)
    raw = path.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    assert n % 8 == 0 and header["__metadata__"]["format"] == "ms"
    assert header["fc.weight"] == {"dtype": "F32", "shape": [4, 3],
                                   "data_offsets": header["fc.weight"]["data_offsets"]}
    ms.load_checkpoint(str(path), format="safetensors", crc_check=True)
    d = ms.load_checkpoint(io.BytesIO(raw), format="safetensors")
    np.testing.assert_array_equal(d["bn.beta"].asnumpy(), golden_values()["bn.beta"])
    with pytest.raises(TypeError, match="BytesIO"):
        ms.load_checkpoint(io.BytesIO(raw))


@pytest.mark.parametrize("raw, match", [
    (b"\x03\0\0", "shorter than the 8-byte"),
    ((1000).to_bytes(8, "little") + b"{}", "declares 1000 bytes"),
    ((2).to_bytes(8, "little") + b"{x", "not valid JSON"),
    ((48).to_bytes(8, "little") + b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'[:48],
     "not valid JSON"),
])
def test_corrupt_safetensors(tmp_path, raw, match):
    with pytest.raises(ValueError, match=match):
        ms.load_checkpoint(_write(tmp_path, raw, "x.safetensors"), format="safetensors")


def test_safetensors_entry_outside_data(tmp_path):
    header = b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'
    raw = len(header).to_bytes(8, "little") + header + b"\0" * 4
    with pytest.raises(ValueError, match="'w' points outside the data"):
        ms.load_checkpoint(_write(tmp_path, raw, "x.safetensors"), format="safetensors")


def test_format_conversions(tmp_path):
    src = tmp_path / "g.ckpt"
    ms.save_checkpoint(golden_net(), str(src))
    ms.ckpt_to_safetensors(str(src), save_path=str(tmp_path / "out"))
    s = ms.load_checkpoint(str(tmp_path / "out" / "g.safetensors"), format="safetensors")
    assert set(s) == set(golden_values())
    ms.safetensors_to_ckpt(str(tmp_path / "out" / "g.safetensors"),
                           name_map={"fc.weight": "dense.weight"})
    back = ms.load_checkpoint(str(tmp_path / "out" / "g.ckpt"))
    np.testing.assert_array_equal(back["dense.weight"].asnumpy(), golden_values()["fc.weight"])
    (tmp_path / "tree" / "rank_0").mkdir(parents=True)
    ms.save_checkpoint(golden_net(), str(tmp_path / "tree" / "rank_0" / "a.ckpt"))
    ms.ckpt_to_safetensors(str(tmp_path / "tree"))
    assert (tmp_path / "tree" / "rank_0" / "a.safetensors").exists()
    with pytest.raises(ValueError, match="no directories starting with 'rank'"):
        ms.ckpt_to_safetensors(str(tmp_path / "out"))


# ------------------------------------------------------------------ the wire codec itself
@given(st.lists(st.integers(0, 2 ** 63 - 1), max_size=4), st.binary(max_size=40),
       st.text(min_size=1, max_size=10))
def test_codec_round_trip(dims, content, tag):
    entry, = proto.decode(proto.encode_entry(tag, dims, "Float32", content))
    assert (entry.tag, entry.dims, entry.tensor_type, bytes(entry.content)) == \
        (tag, dims, "Float32", content)


def test_codec_accepts_packed_dims_and_skips_unknown_fields():
    tensor = (b"\x0a\x02\x02\x03"                 # packed dims [2, 3]
              b"\x12\x07Float32" b"\x1a\x00" b"\x25\0\0\0\0")   # + unknown fixed32 field 4
    value = b"\x0a\x01w" + b"\x12" + bytes([len(tensor)]) + tensor
    entry, = proto.decode(b"\x0a" + bytes([len(value)]) + value)
    assert (entry.tag, entry.dims, bytes(entry.content)) == ("w", [2, 3], b"")


def test_encryption_arguments_are_refused_clearly(tmp_path):
    net = golden_net()
    with pytest.raises(ValueError, match="when format is 'safetensors', the parameter 'enc_key' "
                                         "must be set to default value 'None', but got 'b'k''"):
        ms.save_checkpoint(net, str(tmp_path / "a.safetensors"), enc_key=b"k",
                           format="safetensors")
    with pytest.raises(ValueError, match="'enc_mode' must be set to default value 'AES-GCM', "
                                         "but got 'AES-CBC'"):
        ms.save_checkpoint(net, str(tmp_path / "a.safetensors"), enc_mode="AES-CBC",
                           format="safetensors")
    with pytest.raises(ValueError, match=r"'save_checkpoint'.*key length must be 16, 24, 32"):
        ms.save_checkpoint(net, str(tmp_path / "a.ckpt"), enc_key=b"k")
    assert not (tmp_path / "a.ckpt").exists()
    ms.save_checkpoint(net, str(tmp_path / "a.safetensors"), format="safetensors")
    with pytest.raises(ValueError, match="'load_checkpoint', when format is 'safetensors', the "
                                         "parameter 'dec_mode' must be set to default value "
                                         "'AES-GCM', but got 'AES-CBC'"):
        ms.load_checkpoint(str(tmp_path / "a.safetensors"), dec_mode="AES-CBC",
                           format="safetensors")


# ------------------------------------------------------------------ cut, empty, crafted files
def test_cut_at_an_entry_boundary_loads_the_rest_and_names_the_missing(tmp_path, capsys):
    """The .ckpt layout cannot tell a file cut between two entries from a shorter file:
    it loads, and load_param_into_net warns with the names it did not find (as MindSpore
    does); only crc_check=True detects the cut."""
    entries = proto.decode(_golden_bytes())
    raw = b"".join(proto.encode_entry(*_entry_fields(e)) for e in entries[:2])
    net = DenseBN(fill=7.0)
    loaded = ms.load_checkpoint(_write(tmp_path, raw), net=net)
    assert list(loaded) == ["fc.weight", "fc.bias"]
    err = capsys.readouterr().err
    assert "4 parameters in the 'net' are not loaded" in err
    assert "['bn.moving_mean', 'bn.moving_variance', 'bn.gamma', 'bn.beta'] are not loaded" in err
    whole = tmp_path / "crc.ckpt"
    ms.save_checkpoint(golden_net(), str(whole), crc_check=True)
    cut = whole.read_bytes()
    cut = cut[:len(b"".join(proto.encode_entry(*_entry_fields(e))
                            for e in proto.decode(cut[:-S._CRC_TRAILER])[:2]))]
    with pytest.raises(ValueError, match="crc"):        # the trailer is gone: no CRC found
        ms.load_checkpoint(_write(tmp_path, cut + whole.read_bytes()[-S._CRC_TRAILER:], "c.ckpt"),
                           crc_check=True)


@pytest.mark.parametrize("fmt, raw", [("ckpt", b""),
                                      ("safetensors", b"\x02\0\0\0\0\0\0\0{}")])
def test_empty_file_says_it_is_empty_not_blame_the_filters(tmp_path, fmt, raw):
    path = _write(tmp_path, raw, f"e.{fmt}")
    with pytest.raises(ValueError, match="holds no parameters") as info:
        ms.load_checkpoint(path, format=fmt)
    assert path in str(info.value) and "prefix" not in str(info.value)


def test_a_killed_save_leaves_a_temporary_that_the_next_save_removes(tmp_path, capsys):
    path = tmp_path / "w.ckpt"
    killed = ("import os, numpy as np, spore as ms\n"
              "from spore.train import serialization as S\n"
              "def die(f, records, crc):\n"
              "    f.write(b'partial'); f.flush(); os._exit(3)\n"
              "S._write_ckpt = die\n"
              f"ms.save_checkpoint([ms.Parameter(np.ones(2, np.float32), name='a')], {str(path)!r})\n")
    r = subprocess.run([sys.executable, "-c", killed], capture_output=True, timeout=120)
    assert r.returncode == 3
    left = os.listdir(tmp_path)
    assert len(left) == 1 and re.fullmatch(r"w\.ckpt\.\d+-[a-z0-9_]{8}\.tmp", left[0])
    old_style = tmp_path / "w.ckpt.abcd1234.tmp"          # an older Spore's name
    old_style.write_bytes(b"x")
    alive = tmp_path / f"w.ckpt.{os.getppid()}-abcd1234.tmp"   # a running writer's: kept
    alive.write_bytes(b"x")
    other = tmp_path / "v.ckpt.1-abcd1234.tmp"           # another file's: kept
    other.write_bytes(b"x")
    ms.save_checkpoint(Leaf(a=np.ones(2, np.float32)), str(path))
    assert sorted(os.listdir(tmp_path)) == sorted(["w.ckpt", alive.name, other.name])
    assert "removed" in capsys.readouterr().err


def test_keyboard_interrupt_during_save_says_so(tmp_path, capsys, monkeypatch):
    path = tmp_path / "w.ckpt"
    ms.save_checkpoint(Leaf(a=np.ones(2, np.float32)), str(path))
    capsys.readouterr()

    def interrupted(name, value):
        yield b"\x0a"
        raise KeyboardInterrupt
    monkeypatch.setattr(S, "_entry_chunks", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ms.save_checkpoint(Leaf(a=np.zeros(2, np.float32)), str(path))
    err = capsys.readouterr().err
    assert "was interrupted (KeyboardInterrupt)" in err and "holds its previous content" in err
    assert "permission" not in err
    assert os.listdir(tmp_path) == ["w.ckpt"]
    np.testing.assert_array_equal(ms.load_checkpoint(str(path))["a"].asnumpy(), [1, 1])


def _safetensors_file(entry_json):
    header = b'{"w":' + entry_json + b"}"
    header += b" " * (-len(header) % 8)
    return len(header).to_bytes(8, "little") + header + b"\0" * 8


@pytest.mark.parametrize("entry, match", [
    (b'{"dtype":"F32","shape":' + b"[" * 100_000 + b"]" * 100_000 + b',"data_offsets":[0,8]}',
     "'w' nests JSON values too deeply"),
    (b'{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}',
     r"'w' has 0 bytes but its shape \(4294967296, 4294967296\) and dtype F32 need "
     r"73786976294838206464"),
    (b'{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,0]}',
     "'w' has 0 bytes but its shape"),                   # 2**62 * 4 elements wraps to 0
    (b'{"dtype":"F32","shape":[1e400],"data_offsets":[0,8]}', r"'w' has the invalid shape \[inf\]"),
    (b'{"dtype":"F32","shape":[' + b",".join([b"1"] * 100_000) + b'],"data_offsets":[0,4]}',
     "'w' has 100000 dimensions; at most 64"),
    (b'{"dtype":"F32","shape":"12","data_offsets":[0,8]}', "'w' has the invalid shape '12'"),
    (b'{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}', "'w' has the invalid shape"),
    (b'{"dtype":"F32","shape":[2],"data_offsets":[0,1e400]}', "'w' has the invalid data_offsets"),
    (b'{"dtype":["F32"],"shape":[2],"data_offsets":[0,8]}', "'w' has the unknown dtype"),
    (b'[1, 2]', "'w' is malformed"),
    (b'{"dtype":"F32","shape":[' + b"9" * 5000 + b'],"data_offsets":[0,8]}', "not valid JSON"),
])
def test_crafted_safetensors_headers_name_the_file_and_parameter(tmp_path, entry, match):
    path = _write(tmp_path, _safetensors_file(entry), "x.safetensors")
    with pytest.raises(ValueError, match=match) as info:
        ms.load_checkpoint(path, format="safetensors")
    assert path in str(info.value)


@pytest.mark.parametrize("dims, content, match", [
    ([2 ** 32, 2 ** 32], b"", r"parameter 'w' has 0 bytes of data, but its shape "
                              r"\(4294967296, 4294967296\) and dtype Float32 need "
                              r"73786976294838206464"),
    ([2 ** 62, 4], b"", "parameter 'w' has 0 bytes of data"),     # wraps to 0 in int64
    ([1] * 100_000, b"\0" * 4, "parameter 'w' has 100000 dimensions; at most 64"),
    ([-1, 2], b"", r"parameter 'w' has the invalid shape \(-1, 2\)"),
])
def test_crafted_ckpt_dims_name_the_file_and_parameter(tmp_path, dims, content, match):
    path = _write(tmp_path, proto.encode_entry("w", dims, "Float32", content))
    with pytest.raises(ValueError, match=match) as info:
        ms.load_checkpoint(path)
    assert path in str(info.value)


def test_safetensors_metadata_must_map_names_to_strings(tmp_path):
    header = b'{"__metadata__":{"crc_num":7},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'
    header += b" " * (-len(header) % 8)
    path = _write(tmp_path, len(header).to_bytes(8, "little") + header + b"\0" * 8,
                  "m.safetensors")
    with pytest.raises(ValueError, match="'__metadata__' entry must map names to strings"):
        ms.load_checkpoint(path, format="safetensors", crc_check=True)
