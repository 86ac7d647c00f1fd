"""The benchmark's on-disk cache of encoder outputs: computed once, reused by every later run.

One SQLite file, ``<cache dir>/encodings.sqlite3``, table ``entries(key BLOB PRIMARY KEY, value BLOB)``. A key is
the SHA-256 of ``namespace`` + NUL + ``text``. The namespace names what was computed and everything that computed
it, so a value is never answered for another computation: e.g. ``"span:" +``
:func:`ucdcr.systems.parts.vectors.vectors_identity` (the SHA-256 of the encoder's model files, the versions of torch,
tokenizers, transformers, sentence-transformers, the model package and numpy, the vectors' own version) or
``"lemmas:" +`` :func:`ucdcr.systems.parts.lemmas.lemmas_identity` (spaCy's version, the model's name and version).
The text is the exact input (e.g. the words of a sentence and the mention's place in it, as JSON), and a value
depends on that input alone (no batching effect, :mod:`ucdcr.systems.parts.vectors`), so which runs filled the cache
never changes what a run gets. Values are bytes (float32 vectors, UTF-8 JSON). Each batch of new entries is one
transaction, so an interrupted run keeps what it finished and a crash never leaves half an entry. The default cache
dir is the platform's user cache dir + ``/benchmark`` (env ``UCDCR_CACHE_DIR``, option ``--cache-dir``).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import platformdirs

from ucdcr.errors import UcdcrError

CACHE_FILE = "encodings.sqlite3"
CACHE_ENV = "UCDCR_CACHE_DIR"
_CHUNK = 500  # keys per SELECT (SQLite's default limit on parameters is 999 or more)


def default_cache_dir() -> Path:
    """``$UCDCR_CACHE_DIR``, else the user cache dir of ucdcr + ``/benchmark``."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else Path(platformdirs.user_cache_dir("ucdcr")) / "benchmark"


def entry_key(namespace: str, text: str) -> bytes:
    """The key of one cached value."""
    return hashlib.sha256(f"{namespace}\0{text}".encode()).digest()


class EncodingCache:
    """Cached values by (namespace, text), in one SQLite file under ``folder`` (created on first write)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_cache_dir()
        self.path = self.folder / CACHE_FILE

    def get(self, namespace: str, texts: Sequence[str]) -> dict[str, bytes]:
        """The cached values of those ``texts`` that are in the cache."""
        if not self.path.is_file():
            return {}
        keys = {entry_key(namespace, text): text for text in dict.fromkeys(texts)}
        found: dict[str, bytes] = {}
        with self._connection() as connection:
            ordered = list(keys)
            for start in range(0, len(ordered), _CHUNK):
                chunk = ordered[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                query = f"SELECT key, value FROM entries WHERE key IN ({marks})"
                for key, value in connection.execute(query, chunk):
                    found[keys[key]] = value
        return found

    def put(self, namespace: str, values: Mapping[str, bytes]) -> None:
        """Store ``values`` (text -> bytes) in one transaction."""
        if not values:
            return
        rows = [(entry_key(namespace, text), value) for text, value in values.items()]
        with self._connection() as connection, connection:
            connection.executemany("INSERT OR REPLACE INTO entries (key, value) VALUES (?, ?)", rows)

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=60)
        except (OSError, sqlite3.Error) as exc:
            raise UcdcrError(
                f"cannot open the encoding cache {self.path}: {exc} (choose another --cache-dir)"
            ) from None
        try:
            connection.execute("CREATE TABLE IF NOT EXISTS entries (key BLOB PRIMARY KEY, value BLOB NOT NULL)")
            yield connection
        except sqlite3.DatabaseError as exc:
            raise UcdcrError(
                f"the encoding cache {self.path} cannot be used: {exc}; delete the file to start a new cache"
            ) from None
        finally:
            connection.close()


class ComputeClock:
    """Time spent computing cache entries (encoding, lemmatising) in this process, and how many were computed or
    found in the cache: the benchmark reports the share of its wall time spent encoding."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.computed = 0
        self.reused = 0

    def add(self, seconds: float, computed: int, reused: int) -> None:
        self.seconds += seconds
        self.computed += computed
        self.reused += reused


COMPUTE_CLOCK = ComputeClock()
