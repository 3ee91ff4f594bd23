"""TCPStore shared by 2 ranks (NOTE: [TCP store]): rank 0 serves it (world_size=2, so its
constructor waits for rank 1), both set, get, add and delete keys. The port is argv[1].
Prints 'checked N' on success."""
import sys
from datetime import timedelta

from spore import mint, ops
from spore.communication import init, get_rank, comm_func

init()
rank, port = get_rank(), int(sys.argv[1])
store = (ops.TCPStore if rank == 0 else mint.distributed.TCPStore)(
    "127.0.0.1", port, world_size=2, is_master=rank == 0, timeout=timedelta(seconds=60))
checked = 0
store.set(f"hello{rank}", f"from rank {rank}")
other = 1 - rank
assert store.get(f"hello{other}") == f"from rank {other}".encode()    # waits for the peer
checked += 1
for _ in range(100):                    # every add lands: 200 in all
    store.add("counter", 1)
store.set(f"done{rank}", b"\x00\xff")
assert store.get(f"done{other}") == b"\x00\xff"
assert int(store.get("counter")) == 200 and store.add("counter", 0) == 200
checked += 2
if rank == 1:
    assert store.delete_key("hello0") and not store.delete_key("hello0")
    store.set("deleted", "1")
    checked += 1
else:
    store.get("deleted")
    try:
        TCPStore = ops.TCPStore
        short = TCPStore("127.0.0.1", port, timeout=timedelta(seconds=0.5))
        short.get("hello0")             # deleted by rank 1, never set again
    except RuntimeError as e:
        assert "hello0" in str(e), e
        checked += 1
    else:
        raise AssertionError("get of a deleted key did not time out")
store.set(f"bye{rank}", "")
store.get(f"bye{other}")
comm_func.barrier()                     # the master's server stays up until both are done
print(f"rank {rank} checked {checked}", flush=True)
