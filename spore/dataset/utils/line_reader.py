"""``LineReader``: random access to the lines of a text file."""
from __future__ import annotations

import os


class LineReader:
    """The lines of ``filename`` (without their line ends), read by number from 1."""

    def __init__(self, filename):
        if not isinstance(filename, (str, os.PathLike)) or not os.path.isfile(filename):
            raise TypeError(f"LineReader: the file {filename} does not exist or is not a "
                            "file.")
        self.filename = os.fspath(filename)
        with open(self.filename, encoding="utf-8", newline="") as f:
            self._lines = [line.rstrip("\r\n") for line in f]

    def len(self):
        """The number of lines."""
        return len(self._lines)

    def readline(self, line):
        """Line number ``line`` (1-based)."""
        if isinstance(line, bool) or not isinstance(line, int) or \
                not 1 <= line <= len(self._lines):
            raise ValueError(f"Input line is not within the required interval of [1, "
                             f"{len(self._lines)}].")
        return self._lines[line - 1]

    def close(self):
        """Free the lines (kept for MindSpore's API; the file is already closed)."""
        self._lines = []
