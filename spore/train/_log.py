"""Log lines in MindSpore's layout on stderr (``[WARNING] ME(pid:tid,MainProcess):...``).

Messages go through the standard ``logging`` logger ``"spore"`` so users can
silence or redirect them; ``GLOG_v`` (0 debug, 1 info, 2 warning, 3 error) sets
the default level as in MindSpore.
"""
from __future__ import annotations

import datetime
import logging
import os
import sys
import threading

_LEVEL_NAMES = {logging.DEBUG: "DEBUG", logging.INFO: "INFO", logging.WARNING: "WARNING",
                logging.ERROR: "ERROR", logging.CRITICAL: "CRITICAL"}
_GLOG_LEVELS = {"0": logging.DEBUG, "1": logging.INFO, "2": logging.WARNING,
                "3": logging.ERROR, "4": logging.CRITICAL}


class _MindSporeFormat(logging.Formatter):
    def format(self, record):
        now = datetime.datetime.fromtimestamp(record.created)
        stamp = now.strftime("%Y-%m-%d-%H:%M:%S") + \
            f".{now.microsecond // 1000:03d}.{now.microsecond % 1000:03d}"
        source = _relative_source(record.pathname)
        return (f"[{_LEVEL_NAMES.get(record.levelno, record.levelname)}] "
                f"ME({os.getpid()}:{threading.get_ident()},{record.processName}):{stamp} "
                f"[{source}:{record.lineno}] {record.getMessage()}")


def _relative_source(path):
    marker = os.sep + "spore" + os.sep
    i = path.rfind(marker)
    return path[i + 1:].replace(os.sep, "/") if i >= 0 else os.path.basename(path)


class _StderrHandler(logging.Handler):
    """Writes to the *current* ``sys.stderr`` (so redirection and capture see it)."""

    def emit(self, record):
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:  # noqa: BLE001 - logging must never raise into user code
            self.handleError(record)


def _make_logger():
    log = logging.getLogger("spore")
    if not any(isinstance(h, _StderrHandler) for h in log.handlers):
        handler = _StderrHandler()
        handler.setFormatter(_MindSporeFormat())
        log.addHandler(handler)
        log.propagate = False
    log.setLevel(_GLOG_LEVELS.get(os.environ.get("GLOG_v", "2"), logging.WARNING))
    return log


logger = _make_logger()
