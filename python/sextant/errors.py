"""The exceptions the package raises."""

import re
from typing import Optional

# The engine names where a reading error is: "FILE: byte N: ..." (binary
# formats) or "FILE:N: ..." (a line of a text trace).
_WHERE = re.compile(r"^(?P<file>[^\n]*?)(?:: byte (?P<offset>\d+)|:(?P<line>\d+)):")


class SextantError(Exception):
    """Any error of the package."""


class TraceError(SextantError):
    """A trace could not be read.

    Attributes:
        trace: the path given to :func:`sextant.open`.
        file: the file of the trace the engine was reading (a CTF stream,
            a text file), when it says which.
        offset: the byte offset in ``file`` where reading failed, or None.
        line: the line of ``file`` (text formats), or None.
    """

    def __init__(self, message: str, trace: Optional[str] = None):
        super().__init__(message)
        self.trace = trace
        found = _WHERE.match(message)
        self.file: Optional[str] = found.group("file") if found else trace
        self.offset: Optional[int] = int(found.group("offset")) if found and found.group("offset") else None
        self.line: Optional[int] = int(found.group("line")) if found and found.group("line") else None


class ModelError(SextantError, ValueError):
    """A model or preset that cannot be used (the message names the field)."""

    def __init__(self, message: str, trace: Optional[str] = None):
        super().__init__(message)
        self.trace = trace


class QueryError(SextantError, ValueError):
    """A SQL query that cannot be planned or run (the message names the
    table, column or function)."""

    def __init__(self, message: str, trace: Optional[str] = None):
        super().__init__(message)
        self.trace = trace
