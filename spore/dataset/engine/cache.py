"""``DatasetCache``: MindSpore's client of its cache server (``cache_admin``).

Spore has no cache server: a pipeline given ``cache=DatasetCache(...)`` reads its data
again each epoch, with the same rows in the same order, so only the speed differs. The
object checks its arguments as MindSpore does and reports empty statistics.
"""
from __future__ import annotations


class DatasetCache:
    """A cache session's settings; accepted by every ``cache=`` argument."""

    def __init__(self, session_id, size=0, spilling=False, hostname=None, port=None,
                 num_connections=None, prefetch_size=None):
        for name, value, low in (("session_id", session_id, 0), ("size", size, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"For 'DatasetCache', '{name}' must be a non-negative int, "
                                 f"but got {value!r}.")
        if not isinstance(spilling, bool):
            raise TypeError("For 'DatasetCache', 'spilling' must be bool.")
        for name, value in (("port", port), ("num_connections", num_connections),
                            ("prefetch_size", prefetch_size)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or
                                      value <= 0):
                raise ValueError(f"For 'DatasetCache', '{name}' must be a positive int, but "
                                 f"got {value!r}.")
        if hostname is not None and not isinstance(hostname, str):
            raise TypeError("For 'DatasetCache', 'hostname' must be str.")
        self.session_id, self.size, self.spilling = session_id, size, spilling
        self.hostname, self.port = hostname, port
        self.num_connections, self.prefetch_size = num_connections, prefetch_size

    def get_stat(self):
        """Cache statistics: Spore keeps nothing in a cache, so every count is 0."""
        return _CacheStat()


class _CacheStat:
    num_mem_cached = num_disk_cached = avg_cache_sz = num_numa_hit = 0
