"""The ucdcr exception hierarchy.

Every error says *what* is wrong, *where* (file, line, mention) and, where there is one, *how to fix it*.
Catch :class:`UcdcrError` to handle all of them; the CLI prints their message without a traceback.
"""

from __future__ import annotations

from pathlib import Path


class UcdcrError(Exception):
    """Base class of every error ucdcr raises on purpose."""


class FormatError(UcdcrError):
    """Malformed input: names the file, the line (or record) and the problem."""

    def __init__(self, path: str | Path | None, problem: str, line: int | None = None) -> None:
        self.path = str(path) if path is not None else None
        self.line = line
        self.problem = problem
        where = self.path or "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {problem}")


class InvariantError(UcdcrError):
    """A built record breaks an invariant of the unified format (names the mention and the rule)."""


class DownloadError(UcdcrError):
    """A raw file could not be fetched or copied. ``summary``: the message without its "What failed" lines, for a
    caller that showed each failure as it happened (``ucdcr download``); ``lacking``: the files not obtained;
    ``not_in_mirror``: those of them a given mirror does not hold (with ``--mirror`` the network is not asked)."""

    def __init__(self, message: str, summary: str | None = None) -> None:
        super().__init__(message)
        self.summary = message if summary is None else summary
        self.lacking: list[str] = []
        self.not_in_mirror: list[str] = []


class ChecksumError(DownloadError):
    """A raw file's size or sha256 differs from the manifest."""

    def __init__(self, path: str | Path, expected: str, actual: str, kind: str = "sha256") -> None:
        self.path, self.expected, self.actual, self.kind = str(path), expected, actual, kind
        super().__init__(
            f"{path}: {kind} mismatch: expected {expected}, got {actual}. "
            "Delete the file and run `ucdcr download` again, or check that your copy is the original release."
        )


class ManualDownloadRequired(UcdcrError):
    """The raw files of a dataset cannot be fetched automatically; the message gives the manual steps.
    ``summary``, ``lacking`` and ``not_in_mirror``: as for :class:`DownloadError`."""

    def __init__(self, message: str, summary: str | None = None) -> None:
        super().__init__(message)
        self.summary = message if summary is None else summary
        self.lacking: list[str] = []
        self.not_in_mirror: list[str] = []


class MissingRawData(UcdcrError):
    """A build needs raw files that are not in the raw dir; the message names them and how to get them."""


class UnknownDatasetError(UcdcrError):
    """A dataset id that is not registered; the message lists the valid ids."""


class WriteError(UcdcrError):
    """An output file could not be written (a full disk, no permission...): names the file and why."""
