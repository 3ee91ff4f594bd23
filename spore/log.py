"""``mindspore.log``: the log level and configuration MindSpore reads from its ``GLOG_*``
environment variables, and a logger that follows that level.

``GLOG_v`` is 0 (debug), 1 (info), 2 (warning, the default), 3 (error) or 4 (critical);
``GLOG_logtostderr`` 1 (the default) logs to the standard error, 0 to files in
``GLOG_log_dir``.
"""
from __future__ import annotations

import logging
import os

_LEVELS = {"0": logging.DEBUG, "1": logging.INFO, "2": logging.WARNING, "3": logging.ERROR,
           "4": logging.CRITICAL}
_CONFIG_VARS = ("GLOG_v", "GLOG_logtostderr", "GLOG_log_dir", "GLOG_stderrthreshold",
                "logger_maxBytes", "logger_backupCount")


def get_level():
    """The log level as MindSpore reports it: ``GLOG_v`` as a string ('2' by default)."""
    level = os.environ.get("GLOG_v", "2")
    if level not in _LEVELS:
        raise ValueError(f"Incorrect log level: {level!r}, please check the environment "
                         f"variable 'GLOG_v' (0: DEBUG, 1: INFO, 2: WARNING, 3: ERROR, "
                         f"4: CRITICAL).")
    return level


def get_log_config():
    """The logging configuration: ``GLOG_v`` and ``GLOG_logtostderr`` (with their defaults)
    and the other ``GLOG_*`` / ``logger_*`` variables that are set."""
    config = {"GLOG_v": get_level(),
              "GLOG_logtostderr": os.environ.get("GLOG_logtostderr", "1")}
    for name in _CONFIG_VARS[2:]:
        if name in os.environ:
            config[name] = os.environ[name]
    return config


def _logger():
    logger = logging.getLogger("spore")
    logger.setLevel(_LEVELS[get_level()])
    return logger


def debug(msg, *args, **kwargs):
    """Log ``msg`` at debug level."""
    _logger().debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    """Log ``msg`` at info level."""
    _logger().info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    """Log ``msg`` at warning level."""
    _logger().warning(msg, *args, **kwargs)


def error(msg, *args, **kwargs):
    """Log ``msg`` at error level."""
    _logger().error(msg, *args, **kwargs)


def critical(msg, *args, **kwargs):
    """Log ``msg`` at critical level."""
    _logger().critical(msg, *args, **kwargs)
