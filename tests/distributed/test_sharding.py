"""num_shards / shard_id and DistributedSampler assign rows to shards as MindSpore does
(probed on MindSpore 2.10): shard i takes rows i, i + N, i + 2N, ... of the (shuffled)
order, wrapping to the start so every shard has ceil(n / N) rows."""
import numpy as np
import pytest

import spore.dataset as ds

# (rows, shards) -> each shard's rows, unshuffled (MindSpore 2.10)
MINDSPORE = {
    (10, 2): [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]],
    (10, 3): [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]],
    (11, 2): [[0, 2, 4, 6, 8, 10], [1, 3, 5, 7, 9, 0]],
    (11, 3): [[0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8, 0]],
}


def _rows(d):
    return [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)]


@pytest.mark.parametrize("n,shards", sorted(MINDSPORE))
def test_unshuffled_shards_take_mindspores_rows(n, shards):
    for sid, want in enumerate(MINDSPORE[(n, shards)]):
        assert _rows(ds.NumpySlicesDataset(np.arange(n), ["x"], shuffle=False,
                                           num_shards=shards, shard_id=sid)) == want
        sampler = ds.DistributedSampler(shards, sid, shuffle=False)
        assert _rows(ds.GeneratorDataset([(np.array(i),) for i in range(n)], ["x"],
                                         sampler=sampler)) == want


@pytest.mark.parametrize("n,shards", [(10, 2), (12, 3), (7, 2)])
def test_shuffled_shards_split_one_permutation(n, shards):
    """Every shard picks from the same permutation (the same seed in every process), so
    one epoch of all shards covers every row, each once up to the wrap-around padding."""
    got = [_rows(ds.NumpySlicesDataset(np.arange(n), ["x"], shuffle=True, num_shards=shards,
                                       shard_id=s)) for s in range(shards)]
    assert all(len(g) == -(-n // shards) for g in got)
    every = sorted(sum(got, []))
    assert set(every) == set(range(n)) and len(every) - n == (-n) % shards
