"""Data-parallel checkpoints: written once by rank 0, or per rank in rank_<r> folders."""
import os

from . import launch


def test_data_parallel_checkpoints_written_once_or_per_rank(tmp_path):
    r = launch.run("checkpoints.py", tmp_path, timeout=180)
    assert r.stdout.count(" ok") == 2
    # rank 0 alone wrote the shared folder (keep_checkpoint_max=2 kept the last two)
    assert sorted(os.listdir(tmp_path / "shared")) == ["net-2_1.ckpt", "net-2_2.ckpt"]
    assert (tmp_path / "final.ckpt").is_file()
    for rank in (0, 1):     # MindSpore's layout: each rank its own folder
        assert sorted(os.listdir(tmp_path / f"rank_{rank}")) == ["net-1_2.ckpt", "net-2_2.ckpt"]


def test_one_rank_writes_everywhere(tmp_path):
    import spore as ms
    from spore.communication import management as M
    M.release()
    M.init()
    try:
        ms.set_auto_parallel_context(parallel_mode="data_parallel")
        ms.save_checkpoint(ms.nn.Dense(2, 2), str(tmp_path / "a.ckpt"))
        assert (tmp_path / "a.ckpt").is_file()
    finally:
        M.release()
