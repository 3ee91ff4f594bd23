"""Reading the monitored quantity for EarlyStopping and ReduceLROnPlateau."""
from __future__ import annotations

import numpy as np

from .._log import logger
from ._callback import handle_loss

SMALLER_IS_BETTER = ("hausdorff_distance", "mae", "mse", "loss", "perplexity",
                     "mean_surface_distance", "root_mean_square_distance", "eval_loss")


def check_mode(mode):
    if not isinstance(mode, str):
        raise TypeError(f"The type of 'mode' must be str, but got {type(mode).__name__}.")
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"mode should be 'auto', 'min' or 'max', but got {mode}.")
    return mode


def minimizes(mode, monitor):
    return mode == "min" or (mode == "auto" and monitor in SMALLER_IS_BETTER)


def monitor_value(cb_params, monitor, what):
    """The monitored value as a 0-d array: ``'loss'`` is the training loss, anything else
    is looked up in ``cb_params.eval_results`` (filled by ``Model.fit``); None if absent."""
    candidates = {}
    if monitor == "loss":
        value = handle_loss(cb_params.get("net_outputs"))
    else:
        candidates = cb_params.get("eval_results", {}) or {}
        value = candidates.get(monitor)
    if value is None:
        logger.warning("%s is conditioned on %s, which is not available. Available choices are: "
                       "%s", what, monitor, {"loss", *candidates})
        return None
    value = np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
    if value.shape != ():
        raise ValueError(f"{what.split()[0]} only supports scalar monitor now.")
    return value
