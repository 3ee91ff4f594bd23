"""``OnRequestExit``: save the training state and stop when the user asks (a signal, or
``{"GracefulExit": 1}`` in a JSON file), as MindSpore's callback does."""
from __future__ import annotations

import json
import os
import signal
import threading
import warnings

from ._callback import Callback


def _check_bool(name, value):
    if not isinstance(value, bool):
        raise ValueError(f"The parameter '{name}' must be isinstance of <class 'bool'>, but "
                         f"got {value!r}.")
    return value


class OnRequestExit(Callback):
    """Respond to a request to end training or evaluation by saving its state.

    ``on_train_begin`` / ``on_eval_begin`` install a handler for ``sig`` (default SIGTERM:
    the process is no longer killed by it) and reload ``<file_name>_train.ckpt`` from
    ``directory/rank_<device_id>/`` when it exists. When the signal has arrived:

    * evaluation stops after the current step and ``<file_name>_eval.ckpt`` is saved;
    * training, as in MindSpore 2.10, runs on to its end and then saves
      ``<file_name>_train.ckpt`` (and ``.mindir`` with ``save_mindir``) - unless the
      environment has ``MS_ENABLE_GRACEFUL_EXIT=1``: then the signal, or a
      ``config_file`` whose JSON holds ``"GracefulExit": 1``, stops training after the
      next step, saving the checkpoint with ``epoch_num``, ``step_num``, ``batch_num``,
      ``global_step`` (and ``loss_scale``) appended.
    """

    def __init__(self, save_ckpt=True, save_mindir=True, file_name="Net", directory="./",
                 config_file=None, sig=signal.SIGTERM):
        super().__init__()
        self.save_ckpt = _check_bool("save_ckpt", save_ckpt)
        self.save_mindir = _check_bool("save_mindir", save_mindir)
        if isinstance(sig, bool) or not isinstance(sig, int):
            raise ValueError(f"The parameter 'sig' must be isinstance of <class 'int'>, but "
                             f"got {sig!r}.")
        if hasattr(signal, "SIGKILL") and sig == signal.SIGKILL:
            raise ValueError("Not support send exit request by signal SIGKILL.")
        self.sig = sig
        self.exit = False
        self.lock = threading.Lock()
        self.save_path = directory
        self.key = "GracefulExit"
        self.remote_config_file = config_file
        self.use_graceful = os.environ.get("MS_ENABLE_GRACEFUL_EXIT") == "1"
        self.stop_train = False
        self.need_do_step_end = False
        if self.save_ckpt or self.save_mindir:
            self.train_name, self.eval_name = self._get_save_path(file_name)

    # ------------------------------------------------------------------ training
    def on_train_begin(self, run_context):
        self._install_handler()
        if self.save_ckpt and os.path.isfile(f"{self.train_name}.ckpt"):
            self._load(f"{self.train_name}.ckpt", run_context.original_args().train_network)

    def on_train_step_begin(self, run_context):
        with self.lock:
            if self.use_graceful and (self.exit or self._check_config_info()):
                self.need_do_step_end = True

    def on_train_step_end(self, run_context):
        self._do_step_end(run_context)

    def on_train_epoch_end(self, run_context):
        self._do_step_end(run_context)

    def on_train_end(self, run_context):
        if self.exit:
            params = run_context.original_args()
            self._save(params.train_network, self.train_name, params.train_dataset_element)

    # ---------------------------------------------------------------- evaluation
    def on_eval_begin(self, run_context):
        self._install_handler()
        if not self.save_ckpt:
            return
        net = run_context.original_args().eval_network
        for name in (self.eval_name, self.train_name):
            if os.path.isfile(f"{name}.ckpt"):
                self._load(f"{name}.ckpt", net)
                break

    def on_eval_step_end(self, run_context):
        if self.exit:
            run_context.request_stop()

    def on_eval_end(self, run_context):
        if self.exit:
            params = run_context.original_args()
            self._save(params.eval_network, self.eval_name, params.eval_dataset_element)

    # ------------------------------------------------------------------- helpers
    def _install_handler(self):
        if threading.current_thread() is threading.main_thread():
            signal.signal(self.sig, self._handle_signal)

    def _handle_signal(self, signum, frame):
        self.exit = True

    def _do_step_end(self, run_context):
        with self.lock:
            if self.stop_train or not self.need_do_step_end:
                return
            params = run_context.original_args()
            if self.save_ckpt:
                self._save_step(params)
            if self.save_mindir:
                self._export(params.train_network, self.train_name, params.train_dataset_element)
            run_context.request_stop()
            self.stop_train = True

    def _save_step(self, params):
        from ..serialization import save_checkpoint
        append = {"epoch_num": params.cur_epoch_num, "step_num": params.cur_step_num,
                  "batch_num": params.batch_num}
        manager = params.get("loss_scale_mananger")
        if manager is not None:
            append["loss_scale"] = manager.get_loss_scale()
        optimizer = params.get("optimizer")
        step = getattr(optimizer, "global_step", None)
        if step is not None:
            append["global_step"] = int(step.asnumpy().reshape(-1)[0])
        save_checkpoint(params.train_network, self.train_name, append_dict=append)

    def _save(self, net, name, inputs):
        if self.save_ckpt:
            from ..serialization import save_checkpoint
            save_checkpoint(net, ckpt_file_name=name)
        if self.save_mindir:
            self._export(net, name, inputs)

    @staticmethod
    def _export(net, name, inputs):
        """Export ``.mindir``; an operator the MINDIR writer does not cover yet costs the
        ``.mindir`` file (with a warning), not the checkpoint already saved."""
        from ..mindir import export
        inputs = inputs if isinstance(inputs, (list, tuple)) else [inputs]
        try:
            export(net, *inputs, file_name=name, file_format="MINDIR")
        except NotImplementedError as exc:
            warnings.warn(f"OnRequestExit: {name}.mindir is not written: {exc}", stacklevel=2)

    @staticmethod
    def _load(path, net):
        from ..serialization import load_checkpoint
        load_checkpoint(path, net=net)

    def _check_config_info(self):
        path = self.remote_config_file
        if path is None or not os.path.exists(path):
            return False
        with open(path, "r", encoding="utf-8") as f:
            try:
                info = json.load(f)
            except json.JSONDecodeError:
                return False
        return isinstance(info, dict) and info.get(self.key) == 1

    def _get_save_path(self, file_name):
        from ... import context
        device_id = context.get_context("device_id")
        root = os.getcwd() if self.save_path is None else self.save_path
        folder = os.path.join(root, f"rank_{device_id}")
        os.makedirs(folder, exist_ok=True)
        return os.path.join(folder, f"{file_name}_train"), os.path.join(folder, f"{file_name}_eval")
