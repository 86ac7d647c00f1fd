"""The one registry class of ucdcr (:class:`Registry`), for the datasets and the systems alike.

A registry maps names to values of one kind, in registration order: the datasets' :class:`~ucdcr.registry.DatasetSpec`
by id (:mod:`ucdcr.registry`) and the built-in benchmark systems by name
(:mod:`ucdcr.systems.framework.names`). Both follow the same rules, written once here:

- a name is registered once: registering it again is a ValueError (a bug in the code that registers, not the
  user's error);
- other packages add names through an entry-point group (:attr:`Registry.group`); :meth:`Registry.entry_points`
  reads the group anew at each call, so that a package installed (or put on the path) later is seen, and imports
  none of them; which of a registered name and an entry point of the
  same name wins is the rule of the registry's user (a built-in system's name is its own; see the two modules).

(Not ``catalogue``, spaCy's registry library: it reads the entry points once, when it is first imported, so a plugin
installed or put on the path later is never seen; it imports every plugin to list the names; its lookup lets an
entry point win over a registered name; and a second registration silently replaces the first.)

The module imports no more than the standard library: the CLI lists the registered systems
in its help from here without importing a system.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import TypeVar

T = TypeVar("T")


class Registry(Mapping[str, T]):
    """Names -> values of one ``kind`` ("dataset", "system"), in registration order; ``group``: the entry-point
    group of the kind (module docstring). A read-only mapping; :meth:`register` adds a name."""

    def __init__(self, kind: str, group: str, entries: Mapping[str, T] | None = None) -> None:
        self.kind = kind
        self.group = group
        self._values: dict[str, T] = {}
        for name, value in (entries or {}).items():
            self.register(name, value)

    def register(self, name: str, value: T) -> T:
        """Add ``value`` under ``name``; a name registered before is a ValueError."""
        if name in self._values:
            raise ValueError(f"{self.kind} {name!r} is registered twice")
        self._values[name] = value
        return value

    def entry_points(self) -> list[EntryPoint]:
        """The entry points of the group (module docstring), read anew at each call; nothing is imported."""
        return list(entry_points(group=self.group))

    def copy(self) -> Registry[T]:
        """A registry of the same kind, group and entries (e.g. for a test that registers and restores)."""
        return Registry(self.kind, self.group, self._values)

    def __getitem__(self, name: str) -> T:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {self.group!r}, {self._values!r})"
