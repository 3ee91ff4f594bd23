"""``ops.TCPStore`` / ``mint.distributed.TCPStore`` (NOTE: [TCP store]): MindSpore 2.10's
documented and probed behaviour in one process, and shared by 2 ranks."""
import re
import socket
import threading
import time
from datetime import timedelta

import pytest

from spore import mint, ops

from . import launch


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def store():
    s = ops.TCPStore("127.0.0.1", free_port(), is_master=True, timeout=timedelta(seconds=1))
    yield s
    del s


def test_set_get_add_delete_as_mindspore(store):
    assert store.set("a", "hello") is None and store.get("a") == b"hello"
    store.set("u", "h\u00e9llo")
    assert store.get("u") == "h\u00e9llo".encode()          # a str is stored as UTF-8
    store.set("b", b"\x00\x01")
    assert store.get("b") == b"\x00\x01"
    store.set("a", b"again")
    assert store.get("a") == b"again"
    assert store.add("c", 2) == 2 and store.add("c", 5) == 7 and store.get("c") == b"7"
    assert store.add("n", -4) == -4 and store.get("n") == b"-4"
    # a value set as text counts from its leading integer (MindSpore's strtoll reading)
    for text, plus, want in (("7", 3, 10), (" 3 ", 1, 4), ("2.5", 1, 3), ("-8x", 2, -6)):
        store.set("v", text)
        assert store.add("v", plus) == want
    store.set("v", b"\x00\x01")
    with pytest.raises(RuntimeError, match="'v'"):
        store.add("v", 1)
    assert store.delete_key("a") is True and store.delete_key("a") is False
    assert store.delete_key("never") is False
    assert (store.host, store.port) == ("127.0.0.1", store.port)


def test_get_waits_for_the_key_then_times_out(store):
    threading.Timer(0.2, lambda: store.set("late", "x")).start()
    assert store.get("late") == b"x"
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="'missing'"):
        store.get("missing")
    assert 0.8 < time.monotonic() - start < 5


def test_clients_share_the_masters_data_and_counters(store):
    clients = [mint.distributed.TCPStore("127.0.0.1", store.port) for _ in range(3)]
    clients[0].set("k", "v")
    assert store.get("k") == b"v" and clients[2].get("k") == b"v"

    def bump(c):
        for _ in range(50):
            c.add("count", 1)
    threads = [threading.Thread(target=bump, args=(c,)) for c in clients + [store]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.add("count", 0) == 200


def test_master_waits_for_world_size_users():
    port = free_port()
    threading.Timer(0.3, lambda: ops.TCPStore("127.0.0.1", port)).start()
    master = ops.TCPStore("127.0.0.1", port, world_size=2, is_master=True,
                          timeout=timedelta(seconds=20))
    master.set("x", "1")
    with pytest.raises(RuntimeError, match="1 of 2"):
        ops.TCPStore("127.0.0.1", free_port(), world_size=2, is_master=True,
                     timeout=timedelta(seconds=0.3))


def test_client_without_a_master_times_out():
    with pytest.raises(RuntimeError, match="could not connect"):
        ops.TCPStore("127.0.0.1", free_port(), timeout=timedelta(seconds=0.3))


@pytest.mark.parametrize("args, exc, words", [
    ((1, 1234), TypeError, "'host_name' must be type of string"),
    (("127.0.0.1", "1234"), TypeError, "'port' must be type of int"),
    (("127.0.0.1", 70000), ValueError, "'port' must be legal"),
    (("127.0.0.1", 1234, 0), ValueError, "'world_size' must be legal"),
    (("127.0.0.1", 1234, 2.0), TypeError, "'world_size' must be type of int"),
    (("127.0.0.1", 1234, None, 1), TypeError, "'is_master' must be type of bool"),
    (("127.0.0.1", 1234, None, True, 5), TypeError, "'timeout' must be type of timedelta"),
])
def test_constructor_arguments_are_checked(args, exc, words):
    with pytest.raises(exc, match=re.escape(words)):
        ops.TCPStore(*args)


def test_method_arguments_are_checked(store):
    for call, words in ((lambda: store.set(1, "x"), "TCPStore.set', the argument 'key'"),
                        (lambda: store.set("k", 1), "'value' must be type of string or bytes"),
                        (lambda: store.get(b"k"), "TCPStore.get', the argument 'key'"),
                        (lambda: store.add("k", 1.5), "'amount' must be type of"),
                        (lambda: store.delete_key(None), "TCPStore.delete_key'")):
        with pytest.raises(TypeError, match=re.escape(words)):
            call()


def test_store_shared_by_two_ranks():
    r = launch.run("store.py", free_port(), timeout=180)
    counts = [int(n) for n in re.findall(r"checked (\d+)", r.stdout)]
    assert sorted(counts) == [4, 4], r.stdout
