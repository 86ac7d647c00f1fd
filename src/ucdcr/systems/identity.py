"""A benchmark system's identity: what it is made of, so that its stored results (:mod:`ucdcr.systems.store`) are
reused only by the same system.

Two systems with the same name and version but other code or another configuration never share stored results,
and an edited system is never answered from the results of its old code. The identity (:func:`system_identity`)
is the SHA-256 of

- where the code comes from: ``module:qualname`` of the class and, for a system made by a function, of the function;
- the code: the SHA-256 of the source file of each module of the closure (:func:`code_modules`): the modules of the
  class, of its base classes and of the function, and, transitively, the modules they import at module level
  (``import m``, ``from m import f``: a module, function or class bound in the module's namespace; not a
  package's own submodules, which any import binds) from their own top-level packages or from ``ucdcr``.
  Imports inside functions and other distributions (numpy, torch, ...) are not followed: change the system's
  ``version`` when they change what it computes (the encoder's and spaCy's identities are in every key already,
  :func:`ucdcr.embed.encoder_identity`). A class without a source file (defined in a notebook) is hashed by its
  source text where ``inspect`` finds it;
- ``version``;
- the configuration: ``vars()`` of a freshly made instance as JSON with sorted keys (a value JSON cannot hold is its
  ``repr`` without memory addresses; sets are sorted).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
import sys
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any

from ucdcr.systems.base import System

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def system_identity(system_class: type[System], factory: Callable[[], System] | None, instance: System) -> str:
    """The identity (module docstring) of a system of ``system_class``, made by ``factory`` (None: the class)."""
    origins: list[Any] = [system_class] if factory is None else [system_class, factory]
    parts = {
        "origin": [f"{_module_name(item)}:{_qualname(item)}" for item in origins],
        "code": code_digest(origins),
        "version": str(system_class.version),
        "configuration": configuration(instance),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def code_digest(origins: Iterable[Any]) -> str:
    """SHA-256 of the source files of :func:`code_modules` of ``origins`` (classes and functions), by module name,
    and of the source text of those origins that have no file."""
    origins = list(origins)
    digest = hashlib.sha256()
    for module in sorted(code_modules(origins), key=lambda item: item.__name__):
        digest.update(f"{module.__name__}\0{_module_digest(module)}\0".encode())
    for origin in origins:
        if _source_file(sys.modules.get(_module_name(origin))) is None:
            digest.update(f"{_qualname(origin)}\0{_source_text(origin)}\0".encode())
    return digest.hexdigest()


def code_modules(origins: Iterable[Any]) -> list[ModuleType]:
    """The modules of ``origins`` (and of the base classes of a class), then, transitively, the modules they import
    at module level from the top-level packages of those modules or from ``ucdcr``."""
    roots: list[ModuleType] = []
    for origin in origins:
        for item in inspect.getmro(origin) if isinstance(origin, type) else (origin,):
            module = sys.modules.get(_module_name(item))
            if module is not None and item is not object:
                roots.append(module)
    packages = {_top(module) for module in roots} | {"ucdcr"}
    found: dict[str, ModuleType] = {}
    todo = list(roots)
    while todo:
        module = todo.pop()
        if module.__name__ in found or _top(module) not in packages:
            continue
        found[module.__name__] = module
        todo += _imported(module)
    return list(found.values())


def configuration(instance: System) -> str:
    """``vars(instance)`` as JSON (module docstring), or its repr when it has no ``__dict__`` or JSON fails."""
    state = getattr(instance, "__dict__", None)
    if state is None:
        return _stable_repr(instance)
    try:
        return json.dumps(state, sort_keys=True, default=_json_default)
    except (TypeError, ValueError):
        return _stable_repr(state)


def _imported(module: ModuleType) -> list[ModuleType]:
    """The modules ``module`` binds names of. A package's own submodules are skipped: the import system binds them
    in the package whenever anything imports them, so they would make the closure depend on the process' history."""
    package = f"{module.__name__}." if hasattr(module, "__path__") else None
    modules = []
    for value in list(vars(module).values()):
        if isinstance(value, ModuleType):
            if package is None or not value.__name__.startswith(package):
                modules.append(value)
        elif isinstance(value, type | FunctionType) and isinstance(value.__module__, str):
            target = sys.modules.get(value.__module__)
            if target is not None:
                modules.append(target)
    return modules


def _module_name(item: Any) -> str:
    name = getattr(item, "__module__", None)
    return name if isinstance(name, str) else type(item).__module__


def _qualname(item: Any) -> str:
    name = getattr(item, "__qualname__", None)
    return name if isinstance(name, str) else type(item).__qualname__


def _top(module: ModuleType) -> str:
    return module.__name__.partition(".")[0]


def _source_file(module: ModuleType | None) -> Path | None:
    name = getattr(module, "__file__", None)
    return Path(name) if isinstance(name, str) and Path(name).is_file() else None


def _module_digest(module: ModuleType) -> str:
    path = _source_file(module)
    if path is None:
        return "no file"
    stat = path.stat()
    return _file_digest(path, stat.st_size, stat.st_mtime_ns)


@cache
def _file_digest(path: Path, size: int, mtime: int) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _source_text(origin: Any) -> str:
    try:
        return inspect.getsource(origin)
    except (OSError, TypeError):
        return "no source"


def _json_default(value: object) -> object:
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    return _stable_repr(value)


def _stable_repr(value: object) -> str:
    return _ADDRESS.sub("", repr(value))
