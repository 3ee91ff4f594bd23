"""Parallel workers that keep the order: threads or spawned processes.

``OrderedPool.imap(tasks)`` runs ``job(task)`` for each task on N workers and
yields the results in task order, with at most ``window`` tasks in flight (so a
consumer that stops early leaves little work behind). A job is a picklable
callable; a process pool receives it once, at start-up, and then only tasks and
results travel. A failure in a worker is raised in the consumer as a
RuntimeError carrying the worker's traceback text; a worker process that dies
gives a RuntimeError too, never a hang. ``close`` cancels pending tasks and joins
the workers.

Spawned workers receive the job by pickling, as ``multiprocessing`` does: it is
the pipeline's own object (the user's source or transforms) handed from the
parent process, never data read from a file.
"""
from __future__ import annotations

import collections
import concurrent.futures as cf
import multiprocessing
import pickle
import warnings
from concurrent.futures.process import BrokenProcessPool

from .. import config
from .rows import PIPELINE_ERROR, USER_ERROR, user_error

_installed_job = None


def _install(job_bytes):
    global _installed_job
    from ..._core import threads
    threads.set_worker_process()      # the parent runs one worker per core already
    _installed_job = pickle.loads(job_bytes)


def _run_installed(task):
    try:
        return _installed_job(task)
    except RuntimeError as exc:
        if str(exc).startswith((USER_ERROR, PIPELINE_ERROR)):
            raise RuntimeError(str(exc)) from None  # plain, picklable copy
        raise RuntimeError(str(user_error("a dataset worker process", exc))) from None
    except Exception as exc:
        raise RuntimeError(str(user_error("a dataset worker process", exc))) from None


def picklable(job):
    """The pickled job, or None when it cannot travel to a process (a lambda, a closure)."""
    try:
        return pickle.dumps(job)
    except Exception:
        return None


def can_use_processes(code, who, stacklevel):
    """Whether user ``code`` can run in worker processes; warns (at the user's call) and
    returns False when it cannot be pickled, so threads are used instead."""
    if picklable(code) is not None:
        return True
    warnings.warn(f"{who}: python_multiprocessing needs functions that can be pickled (defined "
                  "at module level, not lambdas or local functions); using threads instead.",
                  stacklevel=stacklevel + 1)
    return False


class OrderedPool:
    """``workers`` threads, or spawned processes when ``processes`` (and ``job`` pickles)."""

    def __init__(self, job, workers, processes=False, name="dataset op"):
        self.name = name
        self.processes = False
        job_bytes = picklable(job) if processes else None
        if job_bytes is not None:
            ctx = multiprocessing.get_context(config.get_multiprocessing_start_method())
            self._executor = cf.ProcessPoolExecutor(workers, mp_context=ctx, initializer=_install,
                                                    initargs=(job_bytes,))
            self._submit = lambda task: self._executor.submit(_run_installed, task)
            self.processes = True
        else:
            self._executor = cf.ThreadPoolExecutor(workers, thread_name_prefix="spore-dataset")
            self._submit = lambda task: self._executor.submit(job, task)
        self.window = max(workers, config.get_prefetch_size())

    def imap(self, tasks):
        """Results of ``job(task)`` in task order."""
        pending = collections.deque()
        tasks = iter(tasks)
        try:
            for task in tasks:
                pending.append(self._submit(task))
                if len(pending) >= self.window:
                    yield self._result(pending.popleft())
            while pending:
                yield self._result(pending.popleft())
        finally:
            for future in pending:
                future.cancel()

    def _result(self, future):
        try:
            return future.result()
        except BrokenProcessPool:
            raise RuntimeError(f"{PIPELINE_ERROR}\nA worker process of {self.name} died or "
                               "failed to start: it was killed, ran out of memory, crashed in "
                               "native code, or could not import the module defining the "
                               "function (see the worker's error output above). With the "
                               "'spawn' start method a script must start its work under "
                               "\"if __name__ == '__main__':\".") from None

    def close(self):
        self._executor.shutdown(wait=True, cancel_futures=True)
