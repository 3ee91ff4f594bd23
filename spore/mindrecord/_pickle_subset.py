"""A reader for the small subset of Python's pickle format that CIFAR-10/100's "python
version" batches use: dicts, lists, tuples, bytes, str, ints, floats and NumPy arrays.

It never imports or calls anything named by the data: the only globals it accepts are the
four NumPy/codec constructors a pickled array or Python-2 string refers to, and those are
*interpreted* here (an array is rebuilt from its dtype string, shape and raw bytes with
``np.frombuffer``), so a hostile file can at worst fail to load. Anything outside the subset
raises ``ValueError`` naming the opcode or global.
"""
from __future__ import annotations

import struct

import numpy as np

_ARRAY_GLOBALS = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray",
                                                                 "_reconstruct")}
_FROMBUFFER_GLOBALS = {("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric",
                                                               "_frombuffer")}
_MARK = object()


class _Global:
    """A whitelisted global named by the data: only its name is kept."""

    def __init__(self, kind):
        self.kind = kind


class _Pending:
    """An ndarray or dtype under construction: REDUCE made it, BUILD gives it its state."""

    def __init__(self, kind, args):
        self.kind, self.args, self.value = kind, args, None


def _text(value):
    return value.decode("latin-1") if isinstance(value, (bytes, bytearray)) else str(value)


def _dtype(pending, state):
    """numpy.dtype(name, align, copy) with BUILD state (version, byte order, ...)."""
    dtype = np.dtype(_text(pending.args[0]))
    order = _text(state[1]) if len(state) > 1 and state[1] is not None else "|"
    if order in "<>" and dtype.itemsize > 1:
        dtype = dtype.newbyteorder(order)
    return dtype


def _array(state):
    """ndarray state: (version, shape, dtype, is_fortran, raw bytes)."""
    _, shape, dtype, fortran, raw = state
    if isinstance(dtype, _Pending):
        dtype = dtype.value
    if not isinstance(dtype, np.dtype) or dtype.hasobject or \
            not isinstance(raw, (bytes, bytearray)):
        raise ValueError("only arrays of plain numbers (not Python objects) can be read")
    if isinstance(raw, bytearray):
        raw = bytes(raw)
    array = np.frombuffer(raw, dtype).copy()
    return array.reshape(tuple(shape), order="F" if fortran else "C")


def _reduce(func, args):
    if not isinstance(func, _Global):
        raise ValueError("a pickled call to something other than a NumPy array constructor")
    if func.kind == "encode":            # Python 3 writing a Python-2 str under protocol 2
        return _text(args[0]).encode(_text(args[1]) if len(args) > 1 else "latin-1")
    if func.kind == "frombuffer":        # protocol 5: (buffer, dtype, shape, order)
        buffer, dtype, shape, order = args
        dtype = dtype.value if isinstance(dtype, _Pending) else dtype
        return np.frombuffer(bytes(buffer), dtype).reshape(shape, order=_text(order)).copy()
    if func.kind in ("reconstruct", "dtype"):
        return _Pending("array" if func.kind == "reconstruct" else "dtype", args)
    raise ValueError("a pickled call to a class, not to a NumPy array constructor")


def _global(module, name):
    module, name = _text(module), _text(name)
    if (module, name) in _ARRAY_GLOBALS:
        return _Global("reconstruct")
    if (module, name) in _FROMBUFFER_GLOBALS:
        return _Global("frombuffer")
    if module == "numpy" and name in ("ndarray", "dtype"):
        return _Global(name)
    if (module, name) == ("_codecs", "encode"):
        return _Global("encode")
    raise ValueError(f"the pickle names the global '{module}.{name}', which is not allowed")


class _Reader:
    def __init__(self, data):
        self.data, self.pos = memoryview(data), 0
        self.stack, self.marks, self.memo = [], [], {}

    def take(self, n):
        if self.pos + n > len(self.data):
            raise ValueError("the pickle is truncated")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return bytes(out)

    def unpack(self, fmt):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def line(self):
        end = bytes(self.data[self.pos:]).index(b"\n")
        out = bytes(self.data[self.pos:self.pos + end])
        self.pos += end + 1
        return out

    def pop_mark(self):
        start = self.marks.pop()
        items = self.stack[start:]
        del self.stack[start:]
        return items

    def build(self):
        state = self.stack.pop()
        target = self.stack[-1]
        if not isinstance(target, _Pending):
            raise ValueError("BUILD on something other than a NumPy array or dtype")
        target.value = _dtype(target, state) if target.kind == "dtype" else _array(state)
        if target.kind == "array":           # replace the placeholder wherever it is held
            self.stack[-1] = target.value
            for key, value in self.memo.items():
                if value is target:
                    self.memo[key] = target.value

    def load(self):
        ops = _OPS
        while True:
            code = self.take(1)
            if code == b".":
                if len(self.stack) != 1:
                    raise ValueError("malformed pickle stack")
                return _resolve(self.stack[0])
            handler = ops.get(code)
            if handler is None:
                raise ValueError(f"pickle opcode {code!r} is outside the supported subset")
            handler(self)


def _resolve(value):
    """Swap any dtype placeholders left in containers for their dtype."""
    if isinstance(value, _Pending):
        if value.value is None:
            raise ValueError("an array or dtype in the pickle was never given its state")
        return value.value
    if isinstance(value, dict):
        return {_resolve(k): _resolve(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_resolve(v) for v in value)
    return value


def _push(fn):
    return lambda r: r.stack.append(fn(r))


def _setitems(r):
    items = r.pop_mark()
    target = r.stack[-1]
    for k in range(0, len(items), 2):
        target[items[k]] = items[k + 1]


def _setitem(r):
    value, key = r.stack.pop(), r.stack.pop()
    r.stack[-1][key] = value


def _appends(r):
    items = r.pop_mark()
    r.stack[-1].extend(items)


def _put(r, key):
    r.memo[key] = r.stack[-1]


def _tuple_n(n):
    def handler(r):
        items = tuple(r.stack[len(r.stack) - n:]) if n else ()
        del r.stack[len(r.stack) - n:]
        r.stack.append(items)
    return handler


def _reduce_op(r):
    args, func = r.stack.pop(), r.stack.pop()
    r.stack.append(_reduce(func, args))


def _stack_global(r):
    name, module = r.stack.pop(), r.stack.pop()
    r.stack.append(_global(module, name))


def _frame(r):
    r.take(8)


_OPS = {
    b"\x80": lambda r: r.take(1),                                   # PROTO
    b"\x95": _frame,                                                # FRAME
    b"}": _push(lambda r: {}), b"]": _push(lambda r: []), b")": _push(lambda r: ()),
    b"N": _push(lambda r: None), b"\x88": _push(lambda r: True),
    b"\x89": _push(lambda r: False),
    b"(": lambda r: r.marks.append(len(r.stack)),                   # MARK
    b"K": _push(lambda r: r.unpack("<B")), b"M": _push(lambda r: r.unpack("<H")),
    b"J": _push(lambda r: r.unpack("<i")), b"G": _push(lambda r: r.unpack(">d")),
    b"\x8a": _push(lambda r: int.from_bytes(r.take(r.unpack("<B")), "little", signed=True)),
    b"I": _push(lambda r: int(r.line())),                           # INT (protocol 0)
    b"U": _push(lambda r: r.take(r.unpack("<B"))),                  # SHORT_BINSTRING
    b"T": _push(lambda r: r.take(r.unpack("<i"))),                  # BINSTRING
    b"C": _push(lambda r: r.take(r.unpack("<B"))),                  # SHORT_BINBYTES
    b"B": _push(lambda r: r.take(r.unpack("<I"))),                  # BINBYTES
    b"\x8e": _push(lambda r: r.take(r.unpack("<Q"))),               # BINBYTES8
    b"\x96": _push(lambda r: bytearray(r.take(r.unpack("<Q")))),    # BYTEARRAY8
    b"\x8c": _push(lambda r: r.take(r.unpack("<B")).decode("utf-8")),
    b"X": _push(lambda r: r.take(r.unpack("<I")).decode("utf-8")),
    b"\x8d": _push(lambda r: r.take(r.unpack("<Q")).decode("utf-8")),
    b"q": lambda r: _put(r, r.unpack("<B")), b"r": lambda r: _put(r, r.unpack("<I")),
    b"\x94": lambda r: _put(r, len(r.memo)),                        # MEMOIZE
    b"h": _push(lambda r: r.memo[r.unpack("<B")]), b"j": _push(lambda r: r.memo[r.unpack("<I")]),
    b"a": lambda r: r.stack[-2].append(r.stack.pop()),              # APPEND
    b"e": _appends,
    b"s": _setitem, b"u": _setitems,
    b"t": lambda r: r.stack.append(tuple(r.pop_mark())),            # TUPLE
    b"\x85": _tuple_n(1), b"\x86": _tuple_n(2), b"\x87": _tuple_n(3),
    b"c": _push(lambda r: _global(r.line(), r.line())),             # GLOBAL
    b"\x93": _stack_global, b"R": _reduce_op, b"b": lambda r: r.build(),
}


def loads(data):
    """The object a pickle of the supported subset holds (bytes stay bytes, as
    ``pickle.loads(data, encoding="bytes")`` gives them)."""
    try:
        return _Reader(data).load()
    except (IndexError, KeyError, struct.error, UnicodeDecodeError, TypeError) as exc:
        raise ValueError(f"not a valid pickle of plain data ({type(exc).__name__}: {exc})") \
            from None
