"""``BackupAndRestore``: resume an interrupted ``Model.train`` from its last backup."""
from __future__ import annotations

import os

from ._callback import Callback


class BackupAndRestore(Callback):
    """Save the training network (weights and optimizer state) to
    ``backup_dir/backup.ckpt`` every ``save_freq`` epochs (``"epoch"``: every epoch), and at
    the start of training load that file when it exists, so a job run again continues
    from its last backup (the epoch count starts again, as in MindSpore). With
    ``delete_checkpoint`` the backup is removed when training ends normally."""

    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True):
        if not isinstance(backup_dir, str):
            raise TypeError("The path is invalid, the type should be string.")
        if save_freq != "epoch":
            if isinstance(save_freq, bool) or not isinstance(save_freq, int):
                raise TypeError(f"The input value must be int, but got "
                                f"'{type(save_freq).__name__}'")
            if save_freq <= 0:
                raise ValueError(f"The input value must be int and must > 0, but got "
                                 f"'{save_freq}' with type 'int'.")
        if not isinstance(delete_checkpoint, bool):
            raise TypeError(f"The input value must be a bool, but got "
                            f"{type(delete_checkpoint).__name__}.")
        self.backup_dir = backup_dir
        self.save_freq = 1 if save_freq == "epoch" else save_freq
        self.delete_checkpoint = delete_checkpoint
        self.backup_file = os.path.join(backup_dir, "backup.ckpt")

    def on_train_begin(self, run_context):
        from ..serialization import load_checkpoint, load_param_into_net
        if os.path.isfile(self.backup_file):
            net = run_context.original_args().train_network
            load_param_into_net(net, load_checkpoint(self.backup_file))

    def on_train_epoch_end(self, run_context):
        from ..serialization import save_checkpoint
        cb = run_context.original_args()
        if cb.cur_epoch_num % self.save_freq == 0:
            os.makedirs(self.backup_dir, exist_ok=True)
            tmp = os.path.join(self.backup_dir, "backup.tmp.ckpt")
            save_checkpoint(cb.train_network, tmp)
            os.replace(tmp, self.backup_file)      # a crash mid-write keeps the old backup

    def on_train_end(self, run_context):
        if self.delete_checkpoint and os.path.isfile(self.backup_file):
            os.remove(self.backup_file)
