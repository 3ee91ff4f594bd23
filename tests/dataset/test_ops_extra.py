"""PaddedDataset, use_sampler, bucket_batch_by_length, sync_wait / sync_update, dataset
callbacks, and the module-level config names. Expected values are MindSpore 2.10's,
probed with the same pipelines."""
import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset import config

from .helpers import rows


def _gen():
    for n in [1, 3, 2, 5, 4, 6, 2, 7]:
        yield (np.arange(n),)


def _column(d):
    return [r[0].tolist() for r in d.create_tuple_iterator(output_numpy=True)]


def test_module_level_config_names():
    assert ds.get_seed is config.get_seed and ds.get_seed() == config.get_seed()
    assert ds.get_callback_timeout() == 60 and ds.get_debug_mode() is False
    assert ds.get_enable_watchdog() is True and ds.get_multiprocessing_timeout_interval() == 300
    assert ds.get_error_samples_mode() == ds.ErrorSamplesMode.RETURN == 0
    assert [m.value for m in ds.ErrorSamplesMode] == [0, 1, 2]
    assert ds.get_video_backend() == "CPU"
    with pytest.raises(ValueError, match="backend"):
        ds.set_video_backend("GPU")
    with pytest.raises(TypeError):
        config.set_error_samples_mode(1)


def test_padded_dataset_and_use_sampler():
    p = ds.PaddedDataset([{"image": np.zeros(3, np.uint8), "label": np.array(1)},
                          {"image": np.ones(2, np.uint8), "label": np.array(2)}])
    assert p.get_col_names() == ["image", "label"] and p.get_dataset_size() == 2
    assert rows(p) == [[[0, 0, 0], 1], [[1, 1], 2]]
    for shard, expected in ((0, [0, 2, 4]), (1, [1, 3, -1])):
        base = ds.NumpySlicesDataset({"image": np.arange(10).reshape(5, 2).astype(np.uint8),
                                      "label": np.arange(5)}, shuffle=False)
        pad = ds.PaddedDataset([{"image": np.zeros(2, np.uint8), "label": np.array(-1)}])
        d = base + pad
        d.use_sampler(ds.DistributedSampler(num_shards=2, shard_id=shard, shuffle=False))
        assert d.get_dataset_size() == 3 and [r[1] for r in rows(d)] == expected
    with pytest.raises(ValueError, match="cannot be empty"):
        ds.PaddedDataset([])
    with pytest.raises(ValueError, match="columns"):
        ds.PaddedDataset([{"a": 1}, {"b": 2}])


def test_bucket_batch_by_length():
    d = ds.GeneratorDataset(_gen, ["x"], shuffle=False)
    assert _column(d.bucket_batch_by_length(["x"], [3, 5], [2, 2, 3])) == [
        [[0, 0], [0, 1]], [[0, 1, 2, 0], [0, 1, 2, 3]],
        [[0, 1, 2, 3, 4, 0, 0], [0, 1, 2, 3, 4, 5, 0], [0, 1, 2, 3, 4, 5, 6]], [[0, 1]]]
    got = _column(d.bucket_batch_by_length(["x"], [3, 5], [2, 2, 3], pad_info={"x": ([8], -1)},
                                           drop_remainder=True))
    assert len(got) == 3 and got[0] == [[0] + [-1] * 7, [0, 1] + [-1] * 6]
    by_fn = d.bucket_batch_by_length(["x"], [3, 5], [2, 2, 3],
                                     element_length_function=lambda x: x.shape[0] % 4)
    assert _column(by_fn)[1] == [[0, 1, 2, 3, 4], [0, 1, 2, 3, 0]]
    assert by_fn.get_dataset_size() == 4
    with pytest.raises(ValueError, match="bucket_batch_sizes"):
        d.bucket_batch_by_length(["x"], [3, 5], [2, 2])
    with pytest.raises(ValueError, match="increasing"):
        d.bucket_batch_by_length(["x"], [5, 3], [2, 2, 2])


def test_sync_wait_releases_one_batch_per_update():
    class Aug:
        n = 0

        def update(self, data):
            self.n += 1
            self.seen = data

        def __call__(self, x):
            return x + 100 * self.n

    aug = Aug()
    d = ds.NumpySlicesDataset({"x": np.arange(6)}, shuffle=False)
    d = d.sync_wait(condition_name="policy", callback=aug.update).map(aug, "x").batch(2)
    got = []
    for i, (x,) in enumerate(d.create_tuple_iterator(output_numpy=True, num_epochs=1)):
        got.append(x.tolist())
        d.sync_update(condition_name="policy", data={"i": i})
    assert got == [[0, 1], [102, 103], [204, 205]] and aug.seen == {"i": 2}
    with pytest.raises(RuntimeError, match="not found"):
        d.sync_update(condition_name="other")


def test_sync_wait_times_out_without_update(monkeypatch):
    monkeypatch.setattr(config, "_callback_timeout", 1)
    d = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False).sync_wait("c").batch(1)
    it = d.create_tuple_iterator(output_numpy=True)
    next(it)
    with pytest.raises(RuntimeError, match="sync_update"):
        next(it)


def test_ds_callbacks_order():
    events = []

    class Recorder(ds.DSCallback):
        def ds_begin(self, c):
            events.append(("begin", c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num))

        def ds_epoch_begin(self, c):
            events.append(("epoch_begin", c.cur_epoch_num, c.cur_step_num))

        def ds_epoch_end(self, c):
            events.append(("epoch_end", c.cur_epoch_num, c.cur_step_num))

        def ds_step_begin(self, c):
            events.append(("step_begin", c.cur_step_num_in_epoch, c.cur_step_num))

    d = ds.NumpySlicesDataset({"x": np.arange(5)}, shuffle=False)
    d = d.map(lambda x: x, callbacks=Recorder(step_size=2))
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    for _ in range(2):
        assert len(list(it)) == 5
    assert events == [("begin", 0, 0, 0), ("epoch_begin", 1, 0),
                      ("step_begin", 1, 1), ("step_begin", 3, 3), ("step_begin", 5, 5),
                      ("epoch_end", 1, 5), ("epoch_begin", 2, 5),
                      ("step_begin", 1, 6), ("step_begin", 3, 8), ("step_begin", 5, 10),
                      ("epoch_end", 2, 10)]
    with pytest.raises(TypeError, match="DSCallback"):
        d.map(lambda x: x, callbacks=[object()])


def test_waited_ds_callback_syncs_with_training_steps():
    seen = []

    class Policy(ds.WaitedDSCallback):
        def sync_step_begin(self, train_run_context, ds_run_context):
            seen.append((train_run_context, ds_run_context.cur_step_num))

    cb = Policy(step_size=1)
    d = ds.NumpySlicesDataset({"x": np.arange(3)}, shuffle=False).map(lambda x: x,
                                                                        callbacks=cb)
    for step, _ in enumerate(d.create_tuple_iterator(output_numpy=True, num_epochs=1)):
        cb.step_end(f"train step {step}")  # what Model.train does after each step
    assert seen == [("train step 0", 2), ("train step 1", 3)]


def test_error_samples_mode(monkeypatch):
    def fail_on_two(x):
        if x == 2:
            raise ValueError("bad row")
        return x

    d = ds.NumpySlicesDataset({"x": np.arange(5)}, shuffle=False).map(fail_on_two)
    with pytest.raises(RuntimeError, match="bad row"):
        rows(d)
    monkeypatch.setattr(config, "_error_samples_mode", ds.ErrorSamplesMode.SKIP)
    assert [r[0] for r in rows(d)] == [0, 1, 3, 4]
    monkeypatch.setattr(config, "_error_samples_mode", ds.ErrorSamplesMode.REPLACE)
    assert [r[0] for r in rows(d)] == [0, 1, 1, 3, 4]


def test_debug_mode_hooks(monkeypatch):
    calls = []

    class Hook(ds.DebugHook):
        def compute(self, *args):
            calls.append((self.prev_op_name, [int(a) for a in args]))
            return args

    def plus_one(x):
        return x + 1

    config.set_debug_mode(True, [Hook()])
    try:
        d = ds.NumpySlicesDataset({"x": np.arange(2)}, shuffle=False)
        assert [r[0] for r in rows(d.map([plus_one, plus_one], num_parallel_workers=4))] == [2, 3]
    finally:
        config.set_debug_mode(False)
    assert calls == [("plus_one", [1]), ("plus_one", [2]), ("plus_one", [2]), ("plus_one", [3])]


def test_module_names_and_base_classes(tmp_path):
    import spore as ms
    d = ds.NumpySlicesDataset({"a": np.arange(3)}, shuffle=False).map(lambda x: x)
    assert isinstance(d, ds.UnionBaseDataset) and isinstance(d, ds.TextBaseDataset)
    assert issubclass(ds.MnistDataset, ds.SourceDataset)
    assert issubclass(ds.TextFileDataset, ds.SourceDataset)
    padded = d.padded_batch(2, pad_info={})
    assert isinstance(padded, ds.PaddedBatchDataset) and padded.get_dataset_size() == 2
    assert ds.samplers.SequentialSampler is ds.SequentialSampler
    assert ds.callback.DSCallback is ds.DSCallback and ds.core.config is config
    assert ds.debug.DebugHook is ds.DebugHook and ds.ds is ds and ds.Tensor is ms.Tensor
    assert [m.value for m in ds.Implementation] == [0, 1]
    cache = ds.DatasetCache(session_id=1, size=0)
    assert cache.get_stat().num_mem_cached == 0
    assert rows(ds.NumpySlicesDataset({"a": np.arange(2)}, shuffle=False)) == [[0], [1]]
    with pytest.raises(ValueError, match="session_id"):
        ds.DatasetCache(session_id=-1)


def _write_lines(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("a\nbb\n\nccc\n")
    return str(path)


def test_line_reader(tmp_path):
    reader = ds.LineReader(_write_lines(tmp_path))
    assert reader.len() == 4
    assert [reader.readline(i) for i in range(1, 5)] == ["a", "bb", "", "ccc"]
    with pytest.raises(ValueError, match=r"\[1, 4\]"):
        reader.readline(0)
    reader.close()


def test_build_vocab_on_operation_nodes(tmp_path):
    words = ds.TextFileDataset(_write_lines(tmp_path), shuffle=False).map(lambda t: t, "text")
    vocab = words.build_vocab(["text"], None, None, ["<pad>"], True)
    assert vocab.vocab()["<pad>"] == 0 and set(vocab.vocab()) == {"<pad>", "a", "bb", "ccc"}
