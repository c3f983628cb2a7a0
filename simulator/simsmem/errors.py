"""The one error type users see: a location and a message, printed as one line with exit status 2."""

from __future__ import annotations


class SimsmemError(Exception):
    """Bad input: ``where`` names the file, instruction or field, ``what`` says what is wrong."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}")
        self.where = where
        self.what = what

    def __reduce__(self):  # pickled as it was made (an error raised on a Dask worker comes back whole)
        return type(self), (self.where, self.what)


class TraceError(SimsmemError):
    """A trace that cannot be read or fails validation."""


class ConfigError(SimsmemError):
    """An architecture config that cannot be read or has a missing or mistyped field."""
