"""``TCPStore`` (``mindspore.ops.TCPStore``, ``mindspore.mint.distributed.TCPStore``): a
key-value store the processes of a job share over TCP.

NOTE: [TCP store]
The master process (``is_master=True``) runs the store: a small server of the standard
library (``socketserver``, one thread per connection) listening on ``host_name:port``,
holding a dict of byte strings. Every store object, the master's too, talks to it
through TCP, one connection per thread (a ``get`` waiting for its key holds up no
other thread's request). A request is an opcode byte and length-prefixed fields
(key as UTF-8, value as raw bytes, ``add``'s amount as decimal text); a reply is a
status byte and a length-prefixed payload. Values are bytes (a str is stored as its
UTF-8 encoding), never pickled objects: nothing a peer sends is turned into code.

Semantics as MindSpore 2.10 documents and behaves (probed): ``set`` overwrites and
returns None; ``get`` returns bytes and waits for a key not yet set, up to the store's
``timeout``, then raises RuntimeError; ``add`` creates a counter at ``amount`` or adds to
one, storing it as decimal text, and reads a value ``set`` gave the way C's ``strtoll``
does (leading spaces and sign, the digits up to the first other character: "2.5" counts
as 2), RuntimeError for a value without digits; ``delete_key`` answers whether the key
was there. With ``world_size`` and ``wait_for_workers`` the master's constructor waits
until ``world_size`` store objects (its own included) have connected, and a client
retries connecting until the master listens, both within ``timeout``.
"""
from __future__ import annotations

import re
import socket
import socketserver
import struct
import sys
import threading
import time
from datetime import timedelta

__all__ = ["TCPStore"]

_SET, _GET, _ADD, _DEL, _HELLO = b"S", b"G", b"A", b"D", b"H"
_OK, _MISSING, _BAD = b"\x00", b"\x01", b"\x02"
_LEN = struct.Struct("!Q")
_INT = re.compile(rb"\s*[+-]?\d+")


def _recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("the TCP store closed the connection")
        buf += chunk
    return bytes(buf)


def _read_field(sock):
    return _recv_exact(sock, _LEN.unpack(_recv_exact(sock, _LEN.size))[0])


def _fields(*parts):
    return b"".join(_LEN.pack(len(p)) + p for p in parts)


class _State:
    """The store's data and the count of connected store objects, under one condition."""

    def __init__(self):
        self.data = {}
        self.clients = 0
        self.cond = threading.Condition()


class _Handler(socketserver.BaseRequestHandler):
    """One connection: requests answered in order until the peer closes it."""

    def handle(self):
        state, sock = self.server.state, self.request
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                code = sock.recv(1)
                if not code:
                    return
                status, payload = self._answer(state, code, sock)
                sock.sendall(status + _fields(payload))
        except (ConnectionError, OSError):
            return

    @staticmethod
    def _answer(state, code, sock):
        if code == _HELLO:
            with state.cond:
                state.clients += 1
                state.cond.notify_all()
            return _OK, b""
        key = _read_field(sock)
        cond = state.cond
        if code == _SET:
            value = _read_field(sock)
            with cond:
                state.data[key] = value
                cond.notify_all()
            return _OK, b""
        if code == _GET:
            wait = int(_read_field(sock)) / 1000
            with cond:
                if not cond.wait_for(lambda: key in state.data, timeout=wait):
                    return _MISSING, b""
                return _OK, state.data[key]
        if code == _ADD:
            amount = int(_read_field(sock))
            with cond:
                old = state.data.get(key)
                if old is not None:
                    m = _INT.match(old)
                    if m is None:
                        return _BAD, b""
                    amount += int(m.group())
                state.data[key] = str(amount).encode()
                cond.notify_all()
            return _OK, state.data[key]
        if code == _DEL:
            with cond:
                return _OK, b"1" if state.data.pop(key, None) is not None else b"0"
        return _BAD, b""


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address):
        super().__init__(address, _Handler)
        self.state = _State()


class TCPStore:
    """A key-value store shared by the processes of a job: ``set``, ``get``, ``add``,
    ``delete_key``. The master (``is_master=True``) serves it on ``host_name:port``;
    the others connect there (NOTE: [TCP store]). ``multi_tenant``, ``master_listen_fd``
    and ``use_libuv`` are accepted and ignored, as MindSpore does."""

    def __init__(self, host_name, port, world_size=None, is_master=False,
                 timeout=timedelta(seconds=300), wait_for_workers=True, multi_tenant=False,
                 master_listen_fd=None, use_libuv=True):
        _arg_type("host_name", host_name, str, "string")
        _arg_type("port", port, int, "int")
        _arg_type("is_master", is_master, bool, "bool")
        _arg_type("timeout", timeout, timedelta, "timedelta")
        _arg_type("wait_for_workers", wait_for_workers, bool, "bool")
        if world_size is None:
            world_size = 1
        _arg_type("world_size", world_size, int, "int")
        if not 0 <= port <= 65535:
            raise ValueError(f"For 'TCPStore', the argument 'port' must be legal, but got "
                             f"{port}.")
        if world_size <= 0:
            raise ValueError(f"For 'TCPStore', the argument 'world_size' must be legal, but "
                             f"got {world_size}.")
        self.host, self.port = host_name, port
        self._timeout = timeout.total_seconds()
        self._server = None
        if is_master:
            try:
                self._server = _Server((host_name, port))
            except OSError as e:
                raise RuntimeError(f"For 'TCPStore', the master could not listen on "
                                   f"{host_name}:{port}: {e}") from None
            threading.Thread(target=self._server.serve_forever, name="spore-tcp-store",
                             daemon=True).start()
        self._local = threading.local()     # one connection per thread: a waiting get
        self._socks = []                    # holds up no other thread's request
        self._request(_HELLO)
        if is_master and wait_for_workers and world_size > 1:
            state = self._server.state
            with state.cond:
                if not state.cond.wait_for(lambda: state.clients >= world_size,
                                           timeout=self._timeout):
                    raise RuntimeError(
                        f"For 'TCPStore', {state.clients} of {world_size} store users "
                        f"connected within the timeout ({self._timeout:g} s).")

    def __del__(self):
        """Close the connection; the master's server stops (in a thread of its own:
        ``shutdown`` waits for the serving loop)."""
        for sock in getattr(self, "_socks", ()):
            sock.close()
        server = getattr(self, "_server", None)
        if server is not None and not sys.is_finalizing():     # (else the process ends)
            threading.Thread(target=_stop, args=(server,), daemon=True).start()

    def _connect(self):
        """A connection to the master's server, retried until the timeout (the master may
        start after this process)."""
        give_up = time.monotonic() + self._timeout
        while True:
            try:
                sock = socket.create_connection((self.host, self.port),
                                                timeout=max(self._timeout, 1.0))
            except OSError as e:
                if time.monotonic() > give_up:
                    raise RuntimeError(f"For 'TCPStore', could not connect to the store at "
                                       f"{self.host}:{self.port} within the timeout "
                                       f"({self._timeout:g} s): {e}") from None
                time.sleep(0.05)
                continue
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.settimeout(None)
            return sock

    def _request(self, code, *fields):
        sock = getattr(self._local, "sock", None)
        if sock is None:
            sock = self._local.sock = self._connect()
            self._socks.append(sock)
        sock.sendall(code + _fields(*fields))
        return _recv_exact(sock, 1), _read_field(sock)

    def set(self, key, value):
        """Store ``value`` (str, as UTF-8, or bytes) under ``key``, replacing any value."""
        _key("set", key)
        if not isinstance(value, (str, bytes)):
            raise TypeError("For 'TCPStore.set', the argument 'value' must be type of string "
                            f"or bytes, but got 'value' type : {type(value)}.")
        self._request(_SET, key.encode(), value.encode() if isinstance(value, str) else value)

    def get(self, key):
        """The bytes stored under ``key``, waiting up to the timeout for it to be set."""
        _key("get", key)
        status, value = self._request(_GET, key.encode(), str(int(self._timeout * 1000))
                                      .encode())
        if status != _OK:
            raise RuntimeError(f"For 'TCPStore.get', the key '{key}' was not set within the "
                               f"timeout ({self._timeout:g} s).")
        return value

    def add(self, key, amount):
        """Add ``amount`` to the counter under ``key`` (created at ``amount``); the new
        value."""
        _key("add", key)
        if not isinstance(amount, int):
            raise TypeError("For 'TCPStore.add', the argument 'amount' must be type of string "
                            f"or int, but got 'amount' type : {type(amount)}.")
        status, value = self._request(_ADD, key.encode(), str(int(amount)).encode())
        if status != _OK:
            raise RuntimeError(f"For 'TCPStore.add', the value stored under '{key}' is not an "
                               f"integer.")
        return int(value)

    def delete_key(self, key):
        """Remove ``key``; whether it was there."""
        _key("delete_key", key)
        return self._request(_DEL, key.encode())[1] == b"1"


def _stop(server):
    server.shutdown()
    server.server_close()


def _arg_type(name, value, types, what):
    if not isinstance(value, types):
        raise TypeError(f"For 'TCPStore', the argument '{name}' must be type of {what}, but "
                        f"got '{name}' type : {type(value)}.")


def _key(fn, key):
    if not isinstance(key, str):
        raise TypeError(f"For 'TCPStore.{fn}', the argument 'key' must be type of string, but "
                        f"got 'key' type : {type(key)}.")
