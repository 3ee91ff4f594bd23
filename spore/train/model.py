"""Model: the high-level train / eval / predict / fit loop of MindSpore.

``Model(network, loss_fn, optimizer)`` wraps the network the way MindSpore does:
``WithLossCell(network, loss_fn)`` inside ``TrainOneStepCell(..., optimizer)``
(or the loss-scale variant, via ``amp.build_train_network``), and
``WithEvalCell(network, loss_fn)`` for evaluation when metrics are given. The
loop calls the callbacks' hooks in MindSpore's order with the same ``cb_params``.

NOTE: [Compiled steps]
Every step goes through ``_step_function``. In PyNative it is the cell itself.
Graph mode needs no change here: ``Cell.__call__`` hands a GRAPH_MODE call to the
graph runner (``nn.cell._graph_runner``), which compiles the whole train step
(forward, backward, update) once per input signature. A Model-level compiled
step (e.g. sink mode running several steps per launch) would be returned from
``_step_function``.
"""
from __future__ import annotations

import collections.abc
import copy

import numpy as np

from .. import nn
from .._context import get_auto_parallel_context
from .._tensor import Tensor
from ..nn.cell import Cell
from ._log import logger
from .callback import __all__ as _internal_callback_names
from .callback import RunContext, TimeMonitor
from .callback._callback import CallbackManager, InternalCallbackParam
from .dataset_helper import DatasetHelper
from .metrics import Loss, get_metrics

_KWARGS = ("loss_scale_manager", "keep_batchnorm_fp32", "boost_config_dict", "acc_level")
_OLD_STYLE_HOOKS = {"begin", "end", "epoch_begin", "epoch_end", "step_begin", "step_end"}


class Model:
    """High-level training and evaluation of a network.

    Args:
        network (Cell): the network (with ``loss_fn``: the backbone returning logits).
        loss_fn (Cell): the loss; None when ``network`` computes its own loss.
        optimizer (Optimizer): updates the parameters; None: ``train`` runs forward only.
        metrics (Union[dict, set]): ``{"acc": Accuracy(), "loss": Loss()}`` or names
            (``{"acc", "loss"}``) evaluated by ``eval`` and ``fit``.
        eval_network (Cell): the evaluation network (default ``WithEvalCell(network,
            loss_fn)``, which returns ``(loss, logits, label)``).
        eval_indexes (list): positions of (loss, logits, label) in the eval network's
            outputs.
        amp_level (str): mixed precision level passed to ``amp.build_train_network``.
        boost_level (str): "O0"; "O1"/"O2" apply ``spore.boost.AutoBoost`` (less-BN head,
            gradient freezing; see docs/boost.md).
        kwargs: ``loss_scale_manager``, ``keep_batchnorm_fp32``.

    Examples:
        >>> model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
        ...               nn.Momentum(net.trainable_params(), 0.01, 0.9), metrics={"acc"})
        >>> model.train(2, train_dataset, callbacks=[LossMonitor()])
        >>> model.eval(test_dataset)
        {'acc': 0.93}
    """

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
                 eval_indexes=None, amp_level="O0", boost_level="O0", **kwargs):
        for arg in kwargs:
            if arg not in _KWARGS:
                raise ValueError(f"The argument in 'kwargs' should be 'loss_scale_manager' or "
                                 f"'keep_batchnorm_fp32' or 'boost_config_dict' or 'acc_level', "
                                 f"but got '{arg}'.")
        if not isinstance(network, Cell):
            raise TypeError(f"The type of 'network' should be 'Cell', but got type "
                            f"'{type(network).__name__}'.")
        if optimizer is None and amp_level != "O0":
            raise ValueError("Auto mixed precision will not work because 'optimizer' is None."
                             "Please set amp_level='O0' to disable auto mixed precision or set "
                             "'optimizer' not be None to use auto mixed precision.")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._amp_level = amp_level
        self._boost_level = boost_level
        self._loss_scale_manager = kwargs.get("loss_scale_manager")
        self._amp_kwargs = {k: kwargs[k] for k in ("loss_scale_manager", "keep_batchnorm_fp32")
                            if k in kwargs}
        self._metrics = metrics
        self._eval_network = eval_network
        self._build_boost_network(kwargs)
        eval_network = self._eval_network
        self._train_network = self._build_train_network()
        self._eval_network, self._eval_indexes = eval_network, None
        self._metric_fns = self._build_eval_network(metrics, eval_network, eval_indexes)
        self._predict_network = network
        self._backbone_is_train = True
        self._current_epoch_num = 0
        self._current_step_num = 0
        self.batch_num = -1

    # ------------------------------------------------------------------ building
    def _build_boost_network(self, kwargs):
        """Boost levels O1/O2 (``mindspore.boost.AutoBoost``) rebuild the network and the
        optimizer (less-BN head, gradient-freezing groups) when there is an optimizer and
        something to evaluate with, as MindSpore's Model does."""
        from .. import boost
        if "acc_level" in kwargs:
            self._boost_level = kwargs["acc_level"]
        processor = boost.AutoBoost(self._boost_level, kwargs.get("boost_config_dict", ""))
        if processor.level not in ("O1", "O2"):
            return
        if self._optimizer is None:
            logger.warning("In boost mode, the optimizer must be defined.")
            return
        if self._eval_network is None and self._metrics is None:
            logger.warning("In boost mode, the eval_network and metrics cannot be undefined at "
                           "the same time.")
            return
        self._network, self._optimizer = processor.network_auto_process_train(self._network,
                                                                              self._optimizer)
        if self._eval_network is not None:
            self._eval_network = processor.network_auto_process_eval(self._eval_network)

    def _build_train_network(self):
        if self._loss_scale_manager is not None and self._optimizer is None:
            raise ValueError("The argument 'optimizer' can not be None when set "
                             "'loss_scale_manager'.")
        if self._optimizer is not None:
            from .. import amp
            return amp.build_train_network(self._network, self._optimizer, self._loss_fn,
                                           level=self._amp_level, boost_level=self._boost_level,
                                           **self._amp_kwargs)
        if self._loss_fn is not None:
            return nn.WithLossCell(self._network, self._loss_fn)
        return self._network

    def _build_eval_network(self, metrics, eval_network, eval_indexes):
        metric_fns = get_metrics(metrics)
        if not metric_fns:
            return metric_fns
        if eval_network is not None:
            if eval_indexes is not None and not (isinstance(eval_indexes, list)
                                                 and len(eval_indexes) == 3):
                raise ValueError(f"The argument 'eval_indexes' must be a list or None. If "
                                 f"'eval_indexes' is a list, length of it must be three. But got "
                                 f"'eval_indexes' {eval_indexes}")
            self._eval_indexes = eval_indexes
            return metric_fns
        if self._loss_fn is None:
            raise ValueError("If `metrics` is set, `eval_network` must not be None. Do not set "
                             "`metrics` if you don't want an evaluation.\nIf evaluation is "
                             "required, you need to specify `eval_network`, which will be used in "
                             "the framework to evaluate the model.\nFor the simple scenarios with "
                             "one data, one label and one logits, `eval_network` is optional, and "
                             "then you can set `eval_network` or `loss_fn`. For the latter case, "
                             "framework will automatically build an evaluation network with "
                             "`network` and `loss_fn`.")
        self._eval_network = nn.WithEvalCell(self._network, self._loss_fn,
                                             self._amp_level in ("O2", "O3", "auto"))
        self._eval_indexes = [0, 1, 2]
        return metric_fns

    @property
    def train_network(self):
        return self._train_network

    @property
    def eval_network(self):
        return self._eval_network

    @property
    def predict_network(self):
        return self._predict_network

    # ------------------------------------------------------------------ train / fit
    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1,
              initial_epoch=0):
        """Train for ``epoch`` epochs (from ``initial_epoch``); returns None.

        Each dataset row must hold the network's inputs (with ``loss_fn``: exactly
        ``(data, label)``). ``dataset_sink_mode`` runs one step per call, as on
        MindSpore's CPU build; ``sink_size`` then sets the step count callbacks see per
        epoch.
        """
        _check_bool(dataset_sink_mode)
        sink_size = self._check_train_args("Model.train", epoch, train_dataset, sink_size,
                                           initial_epoch)
        callbacks = _as_list(callbacks)
        _check_old_style_hooks(callbacks, "train")
        self._train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch)

    def fit(self, epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None,
            dataset_sink_mode=False, valid_dataset_sink_mode=False, sink_size=-1,
            initial_epoch=0):
        """Train, evaluating on ``valid_dataset`` every ``valid_frequency`` epochs (an int, or
        a list of epoch numbers); ``EarlyStopping`` and the other callbacks see the results
        as ``cb_params.eval_results`` (metrics plus ``eval_loss``)."""
        _check_bool(dataset_sink_mode)
        _check_bool(valid_dataset_sink_mode)
        sink_size = self._check_train_args("Model.fit", epoch, train_dataset, sink_size,
                                           initial_epoch)
        if isinstance(valid_frequency, bool) or not isinstance(valid_frequency, (int, list)):
            raise TypeError(f"For 'Model.fit', the type of 'valid_frequency' must be a list or an "
                            f"integer, but got type {type(valid_frequency)}.")
        if valid_dataset and not self._metric_fns:
            raise ValueError("For 'Model.fit', if valid_dataset is not None, the model argument "
                             "'metrics' can not beNone or empty, you should set the argument "
                             "'metrics' for model.")
        callbacks = _as_list(callbacks)
        _check_old_style_hooks(callbacks, "fit")
        self._train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch,
                    (valid_dataset, valid_frequency))

    @staticmethod
    def _check_train_args(func, epoch, train_dataset, sink_size, initial_epoch):
        _check_int(sink_size)
        _check_positive_int(epoch)
        _check_non_negative_int(initial_epoch)
        if initial_epoch >= epoch:
            raise ValueError(f"For '{func}', the parameter 'epoch' must bigger than parameter "
                             f"'initial_epoch', but got the parameter 'epoch' is {epoch}, "
                             f"'initial_epoch' is {initial_epoch}.")
        dataset_size = train_dataset.get_dataset_size()
        if dataset_size == 0:
            raise ValueError("There is no valid data in dataset, please check dataset file "
                             "firstly.")
        if sink_size == -1:
            return dataset_size
        if sink_size < -1 or sink_size == 0:
            raise ValueError(f"For '{func}', The argument 'sink_size' must be -1 or positive, but "
                             f"got {sink_size}.")
        return sink_size

    def _train(self, epoch, dataset, callbacks, sink_mode, sink_size, initial_epoch,
               valid=(None, 1)):
        cb_params = InternalCallbackParam(
            cur_step_num=0, train_network=self._train_network, epoch_num=epoch - initial_epoch,
            batch_num=sink_size if sink_mode else dataset.get_dataset_size(), mode="train",
            loss_fn=self._loss_fn, optimizer=self._optimizer,
            parallel_mode=get_auto_parallel_context("parallel_mode"),
            device_number=get_auto_parallel_context("device_num"), train_dataset=dataset, list_callback=list(callbacks),
            train_dataset_element=None, network=self._network, last_save_ckpt_step=None,
            latest_ckpt_file=None, loss_scale_mananger=self._loss_scale_manager,
            dataset_sink_mode=False)
        self.batch_num = cb_params.batch_num
        with CallbackManager(callbacks) as manager:
            self._train_process(epoch, dataset, manager, cb_params, initial_epoch, valid)

    def _train_process(self, epoch, dataset, manager, cb_params, initial_epoch, valid):
        helper = DatasetHelper(dataset, False, epoch_num=epoch)
        self._train_network.set_train(True)
        self._backbone_is_train = True
        run_context = RunContext(cb_params)
        manager.on_train_begin(run_context)
        step = _step_function(self._train_network)
        for i in range(initial_epoch, epoch):
            cb_params.cur_epoch_num = self._current_epoch_num = i + 1
            self._current_step_num = 0
            manager.on_train_epoch_begin(run_context)
            for inputs in helper:
                self._check_train_inputs(inputs)
                cb_params.cur_step_num += 1
                self._current_step_num = (cb_params.cur_step_num - 1) % cb_params.batch_num + 1
                cb_params.train_dataset_element = inputs
                manager.on_train_step_begin(run_context)
                self._set_backbone_mode(self._train_network, True)
                outputs = step(*inputs)
                cb_params.net_outputs = outputs
                self._update_loss_scale(outputs)
                manager.on_train_step_end(run_context)
                if run_context.get_stop_requested():
                    break
            self._eval_during_train(valid, cb_params, manager)
            manager.on_train_epoch_end(run_context)
            cb_params.pop("metrics", None)
            cb_params.pop("eval_results", None)
            if run_context.get_stop_requested():
                break
        manager.on_train_end(run_context)

    def _check_train_inputs(self, inputs):
        if self._loss_fn is not None and len(inputs) != 2:
            raise ValueError(f"When 'loss_fn' is not None, 'train_dataset' should return two "
                             f"elements, but got {len(inputs)}, please check the number of "
                             f"elements returned by 'train_dataset'")

    def _update_loss_scale(self, outputs):
        manager = self._loss_scale_manager
        if manager is not None and manager.get_drop_overflow_update():
            manager.update_loss_scale(bool(np.all(outputs[1].asnumpy())))

    def _set_backbone_mode(self, network, is_train):
        if self._backbone_is_train != is_train:
            network.set_train(is_train)
            self._backbone_is_train = is_train
        if not is_train:
            network.set_grad(False)

    def _eval_during_train(self, valid, cb_params, manager):
        valid_dataset, frequency = valid
        if not valid_dataset or not _should_eval(cb_params.cur_epoch_num, frequency):
            return
        saved = {k: cb_params[k] for k in ("cur_step_num", "batch_num", "dataset_sink_mode",
                                           "net_outputs")}
        # during fit, of Spore's own callbacks only TimeMonitor also times the evaluation
        eval_callbacks = [cb for cb in manager.callbacks
                          if type(cb).__name__ not in _internal_callback_names
                          or isinstance(cb, TimeMonitor)]
        cb_params.eval_network = self._eval_network
        cb_params.valid_dataset = valid_dataset
        self._run_eval(valid_dataset, eval_callbacks, cb_params, add_eval_loss=True)
        cb_params.mode = "train"
        cb_params.update(saved)

    # ------------------------------------------------------------------ eval / predict
    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """Evaluate the metrics on ``valid_dataset``; returns ``{name: value}``."""
        _check_bool(dataset_sink_mode)
        if not self._metric_fns:
            raise ValueError("For Model.eval, the model argument 'metrics' can not be None or "
                             "empty, you should set the argument 'metrics' for model.")
        callbacks = _as_list(callbacks)
        _check_old_style_hooks(callbacks, "eval")
        cb_params = InternalCallbackParam(eval_network=self._eval_network,
                                          valid_dataset=valid_dataset, list_callback=callbacks,
                                          network=self._network)
        return self._run_eval(valid_dataset, callbacks, cb_params)

    def _run_eval(self, dataset, callbacks, cb_params, add_eval_loss=False):
        cb_params.update(batch_num=dataset.get_dataset_size(), mode="eval", cur_step_num=0,
                         dataset_sink_mode=False)
        for metric in self._metric_fns.values():
            metric.clear()
        eval_loss = Loss() if add_eval_loss else None
        run_context = RunContext(cb_params)
        with CallbackManager(callbacks) as manager:
            manager.on_eval_begin(run_context)
            helper = DatasetHelper(dataset, False)
            self._eval_network.set_train(False)
            self._backbone_is_train = False
            manager.on_eval_epoch_begin(run_context)
            step = _step_function(self._eval_network)
            for inputs in helper:
                cb_params.cur_step_num += 1
                cb_params.eval_dataset_element = inputs
                manager.on_eval_step_begin(run_context)
                self._set_backbone_mode(self._eval_network, False)
                outputs = step(*inputs)
                cb_params.net_outputs = outputs
                manager.on_eval_step_end(run_context)
                self._update_metrics(outputs)
                if eval_loss is not None:
                    eval_loss.update(outputs[self._eval_indexes[0]])
                if run_context.get_stop_requested():
                    break
            manager.on_eval_epoch_end(run_context)
            metrics = {name: metric.eval() for name, metric in self._metric_fns.items()}
            cb_params.metrics = metrics
            if eval_loss is not None:
                cb_params.eval_results = dict(copy.deepcopy(metrics), eval_loss=eval_loss.eval())
            manager.on_eval_end(run_context)
        return metrics

    def _update_metrics(self, outputs):
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        if not isinstance(outputs, tuple):
            raise ValueError(f"The argument 'outputs' should be tuple, but got {type(outputs)}.")
        if self._eval_indexes is not None and len(outputs) < 3:
            raise ValueError(f"The length of 'outputs' must be >= 3, but got {len(outputs)}")
        for metric in self._metric_fns.values():
            if self._eval_indexes is None:
                metric.update(*outputs)
            elif isinstance(metric, Loss):
                metric.update(outputs[self._eval_indexes[0]])
            else:
                metric.update(outputs[self._eval_indexes[1]], outputs[self._eval_indexes[2]])

    def predict(self, *predict_data, backend=None, config=None):
        """Run the network (inference mode) on Tensor inputs; returns its output."""
        if backend not in ("lite", None):
            raise ValueError(f"For Model.predict, `backend` should be 'lite' or None, but got "
                             f"{backend}")
        if backend == "lite":
            logger.warning("Lite inference failed, fallback to original inference!")
        self._set_backbone_mode(self._predict_network, False)
        for item in predict_data:
            _check_predict_item(item)
        return _step_function(self._predict_network)(*predict_data)


def _step_function(network):
    """The callable that runs one step of ``network`` (see NOTE: [Compiled steps])."""
    return network


def _should_eval(epoch, frequency):
    return epoch % frequency == 0 if isinstance(frequency, int) else epoch in frequency


def _as_list(callbacks):
    if callbacks is None:
        return []
    if isinstance(callbacks, collections.abc.Iterable):
        return list(callbacks)
    return [callbacks]


def _check_old_style_hooks(callbacks, mode):
    """User callbacks should override ``on_train_*``/``on_eval_*``: old-style hooks get a
    warning in train/eval and are an error in fit (where they would also run for eval)."""
    for cb in callbacks:
        name = type(cb).__name__
        if name in _internal_callback_names:
            continue
        old = set(type(cb).__dict__) & _OLD_STYLE_HOOKS
        if not old:
            continue
        message = (f"For {name} callback, {old} methods may not be supported in later version, "
                   f"Use methods prefixed with 'on_train' or 'on_eval' instead when using "
                   f"customized callbacks.")
        if mode == "fit":
            raise ValueError(message)
        logger.warning(message)


def _check_predict_item(item):
    if item is None or isinstance(item, (int, float, str)):
        return
    if isinstance(item, Tensor):
        if item.size == 0:
            logger.critical("The input data can not be empty.")
            raise ValueError("The input data can not be empty.")
        return
    kinds = "Tensor, None, int, float, str"
    raise TypeError(f"The types of input data must be in the Union({kinds}, tuple[{kinds}], "
                    f"list[{kinds}], dict[{kinds}]), but got type {type(item).__name__}.")


def _check_bool(value):
    if not isinstance(value, bool):
        raise TypeError(f"The input value must be a bool, but got {type(value).__name__}.")


def _check_int(value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"The input value must be int, but got '{type(value).__name__}'")


def _check_positive_int(value):
    _check_int(value)
    if value <= 0:
        raise ValueError(f"The input value must be int and must > 0, but got '{value}' with type "
                         f"'int'.")


def _check_non_negative_int(value):
    _check_int(value)
    if value < 0:
        raise ValueError(f"The input value must be int and must >= 0, but got '{value}' with "
                         f"type 'int'.")
