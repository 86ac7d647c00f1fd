"""Map a pure function over batches of picklable records: in this process (jobs=1) or in a process pool.

Results come back in input order, whatever the number of workers, so builds are deterministic. Each worker loads
spaCy once (the model is cached per process by :func:`ucdcr.pipeline.nlp.load_nlp`). A Ray Data executor for
corpora that outgrow one machine can implement the same :func:`map_batches` signature.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def batched(items: Sequence[T], size: int) -> list[list[T]]:
    """Consecutive batches of at most ``size`` items."""
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def map_batches(function: Callable[[list[T]], list[R]], batches: list[list[T]], jobs: int = 1) -> Iterator[list[R]]:
    """``function`` over every batch, yielding results in batch order."""
    if jobs <= 1 or len(batches) <= 1:
        for batch in batches:
            yield function(batch)
        return
    with ProcessPoolExecutor(max_workers=min(jobs, len(batches))) as pool:
        yield from pool.map(function, batches)
