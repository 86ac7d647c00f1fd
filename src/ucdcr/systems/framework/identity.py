"""A benchmark system's identity: what it is made of, so that its stored results (:mod:`ucdcr.systems.framework.store`)
are reused only by the same system.

Two systems with the same name and version but other code or another configuration never share stored results,
and an edited system is never answered from the results of its old code. The identity (:func:`system_identity`)
is the SHA-256 of

- where the code comes from: ``module:qualname`` of the class and, for a system made by a function, of the function;
- the code: the SHA-256 of the source file of each module of the closure (:func:`code_files`): the modules of the
  class, of its base classes and of the function, and, transitively, their packages and every module their
  source imports (read with :mod:`ast`, so imports inside functions count too: ``import m``, ``from m import f``,
  ``from . import m``) from their own top-level packages or from ``ucdcr``. For a reference system that is most
  of ucdcr (the benchmark, scoring, analysis and, through the lemmatiser, pipeline code): an edit anywhere there
  runs it again. Other distributions (numpy, torch, ...) are not followed: change the system's ``version`` when
  they change what it computes (the encoder's and spaCy's identities are in every key already,
  :func:`ucdcr.embed.encoder_identity`). A class without a source file (defined in a notebook) is hashed by its
  source text where ``inspect`` finds it;
- ``version``;
- the configuration: ``vars()`` of a freshly made instance as JSON with sorted keys (a value JSON cannot hold is its
  ``repr`` without memory addresses; sets are sorted).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import inspect
import json
import re
import sys
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

from ucdcr.systems.framework.base import System

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
    """SHA-256 of the source files of :func:`code_files` of ``origins`` (classes and functions), by module name,
    and of the source text of those origins that have no file."""
    origins = list(origins)
    digest = hashlib.sha256()
    for name, path in sorted(code_files(origins).items()):
        digest.update(f"{name}\0{_file_digest(path)}\0".encode())
    for origin in origins:
        if _module_file(_module_name(origin)) is None:
            digest.update(f"{_qualname(origin)}\0{_source_text(origin)}\0".encode())
    return digest.hexdigest()


def code_files(origins: Iterable[Any]) -> dict[str, Path]:
    """The source file of each module of the closure of ``origins`` (module docstring), by module name."""
    roots = [
        _module_name(item)
        for origin in origins
        for item in (inspect.getmro(origin) if isinstance(origin, type) else (origin,))
        if item is not object
    ]
    packages = {name.partition(".")[0] for name in roots} | {"ucdcr"}
    found: dict[str, Path] = {}
    todo = list(roots)
    while todo:
        name = todo.pop()
        path = None if name in found or name.partition(".")[0] not in packages else _module_file(name)
        if path is not None:
            found[name] = path
            todo += [*_imports(name, path), name.rpartition(".")[0]]  # a module's package runs when it is imported
    return found


def configuration(instance: System) -> str:
    """``vars(instance)`` as JSON (module docstring), or its repr when it has no ``__dict__`` or JSON fails."""
    state = getattr(instance, "__dict__", None)
    if state is None:
        return _stable_repr(instance)
    try:
        return json.dumps(state, sort_keys=True, default=_json_default)
    except (TypeError, ValueError):
        return _stable_repr(state)


def _imports(name: str, path: Path) -> list[str]:
    """The absolute names the source of module ``name`` imports anywhere, and for ``from m import x`` also
    ``m.x`` (kept by :func:`code_files` only if it is a module)."""
    stat = path.stat()
    return list(_parsed_imports(name, path, stat.st_size, stat.st_mtime_ns))


@cache
def _parsed_imports(name: str, path: Path, size: int, mtime: int) -> tuple[str, ...]:
    if path.suffix != ".py":
        return ()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(package, node.level, node.module)
            names += [base, *(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")]
    return tuple(names)


def _absolute(package: str, level: int, module: str | None) -> str:
    if level == 0:
        return module or ""
    parts = package.split(".")
    base = ".".join(parts[: len(parts) - (level - 1)])
    return f"{base}.{module}" if module else base


def _module_file(name: str) -> Path | None:
    """The file of module ``name`` (loaded or not; its parent packages are imported to find it), or None."""
    module = sys.modules.get(name)
    origin = getattr(module, "__file__", None) if module is not None else _spec_origin(name)
    return Path(origin) if isinstance(origin, str) and Path(origin).is_file() else None


def _spec_origin(name: str) -> str | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return None
    return spec.origin if spec is not None and spec.has_location else None


def _module_name(item: Any) -> str:
    name = getattr(item, "__module__", None)
    return name if isinstance(name, str) else type(item).__module__


def _qualname(item: Any) -> str:
    name = getattr(item, "__qualname__", None)
    return name if isinstance(name, str) else type(item).__qualname__


def _file_digest(path: Path) -> str:
    stat = path.stat()
    return _digest(path, stat.st_size, stat.st_mtime_ns)


@cache
def _digest(path: Path, size: int, mtime: int) -> str:
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
