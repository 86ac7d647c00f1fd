"""The benchmark's systems by name: the built-in systems (:data:`BUILTIN`), entry points and ``module:attribute``.

A system is named on the command line (``--systems``) or in :func:`ucdcr.benchmark` by

- a registered name: the built-in systems of :data:`BUILTIN` and the names of the entry points of the group
  :data:`ENTRY_POINT_GROUP`, which a third-party package declares in its ``pyproject.toml``::

      [project.entry-points."ucdcr.systems"]
      my-system = "mypackage.mymodule:MySystem"

- ``module:attribute``: any importable module (the current folder is on the path) and an attribute of it.

The attribute is a :class:`~ucdcr.systems.framework.base.System` subclass or a function without arguments that
returns a System; a new instance is made for every fit, so nothing leaks from one dataset to the next. Anything else
is an error naming what was found.

Adding a built-in system is one line of :data:`BUILTIN`: its name, where it is (``module:attribute``, a module of
:mod:`ucdcr.systems.reference`), the extra it needs and whether it runs by default; the CLI's help, the default
set and the order of the tables follow from it (tests/systems/test_registry.py checks that every System of the
reference package with a ``name`` is registered). The table names the modules, it does not import them: a system is
imported when it is resolved, and the framework imports no reference system.

The names of :data:`BUILTIN` belong to the built-in systems: a system of another class whose name (its ``name``
attribute, or its class name) is one of them is an error, and so is an entry point named like one, or two entry
points of one name with different targets, so that results stored under a name
(:mod:`ucdcr.systems.framework.store`) are always that system's. A resolved system carries its
:func:`~ucdcr.systems.framework.identity.system_identity` (code, version, configuration), which keys its stored
results.

The names are held by :class:`ucdcr.registries.Registry`, the registry class of the datasets too. This module
imports no system and no heavy library at its top (the CLI lists :data:`BUILTIN` in its help from here).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import TYPE_CHECKING

from ucdcr.errors import UcdcrError
from ucdcr.registries import Registry

if TYPE_CHECKING:
    from ucdcr.systems.framework.base import System

ENTRY_POINT_GROUP = "ucdcr.systems"


@dataclass(frozen=True)
class BuiltinSystem:
    """A built-in system: ``target``, where it is (``module:attribute``); ``extra``, the optional extra it needs
    (None: the core); ``default``, whether it runs when no system is named (False: opt-in, named with
    ``--systems``); ``after``: the systems whose cached models it reuses, fitted before it when fits run at once."""

    target: str
    extra: str | None = None
    default: bool = True
    after: tuple[str, ...] = ()
    """The systems whose cached models it builds on: a parallel benchmark fits it after theirs."""


BUILTIN: Registry[BuiltinSystem] = Registry(
    "system",
    ENTRY_POINT_GROUP,
    {
        "head-lemma": BuiltinSystem("ucdcr.systems.reference.head_lemma:HeadLemma"),
        "lemma-baseline": BuiltinSystem("ucdcr.systems.reference.head_lemma:LemmaBaseline"),
        "lemma-pairs": BuiltinSystem("ucdcr.systems.reference.lemma_pairs:LemmaPairs", "bench"),
        "lh": BuiltinSystem("ucdcr.systems.reference.lemma_heuristic:LemmaHeuristic", "bench"),
        "embedding": BuiltinSystem("ucdcr.systems.reference.embedding:Embedding", "embed"),
        "pairwise": BuiltinSystem("ucdcr.systems.reference.pairwise:Pairwise", "embed"),
        "cross-encoder": BuiltinSystem("ucdcr.systems.reference.cross_encoder:CrossEncoder", "embed"),
        "ensemble": BuiltinSystem(
            "ucdcr.systems.reference.ensemble:Ensemble", "embed", after=("pairwise", "cross-encoder")
        ),
        "lh-ce": BuiltinSystem(
            "ucdcr.systems.reference.lemma_heuristic_ce:LemmaHeuristicCrossEncoder", "embed", default=False
        ),
        "knn-ce": BuiltinSystem("ucdcr.systems.reference.knn_ce:KnnCrossEncoder", "embed", default=False),
        "cross-encoder-3": BuiltinSystem(
            "ucdcr.systems.reference.cross_encoder:CrossEncoderCommittee", "embed", default=False
        ),
        "ensemble-3": BuiltinSystem(
            "ucdcr.systems.reference.ensemble:EnsembleCommittee", "embed", default=False, after=("cross-encoder-3",)
        ),
    },
)
"""The built-in (reference) systems, in the order of the benchmark's tables: one line each."""


def builtin_version(name: str) -> str | None:
    """The version of the built-in system ``name`` in this code (its class's ``version``); None for another name."""
    from ucdcr.systems.framework.base import System

    if name not in BUILTIN:
        return None
    value = _import(BUILTIN[name].target)
    return value.version if isinstance(value, type) and issubclass(value, System) else None


def default_systems() -> list[str]:
    """The systems a benchmark runs when none is named: the built-in systems that are not opt-in."""
    return [name for name, builtin in BUILTIN.items() if builtin.default]


@dataclass(frozen=True)
class SystemSpec:
    """A resolved system: its name in the tables, how to make one, its version, whether it learns from data (only those
    get a transfer matrix), whether it needs the ``embed`` extra, its identity (code, version and configuration:
    :func:`~ucdcr.systems.framework.identity.system_identity`; keys its stored results) and its origin: what it was
    given as, stored with its runs so that a report can say where a row came from (``module:attribute`` as given or
    registered, ``entry point NAME = module:attribute``, or the ``module:qualname`` of a class or function given in
    Python)."""

    name: str
    make: Callable[[], System] = field(compare=False)
    version: str
    trainable: bool
    needs_encoder: bool
    identity: str
    origin: str = field(default="", compare=False)
    deterministic: bool = False
    """A trainable system whose results do not depend on its seed: run with seed 0 only."""
    uses_gpu: bool = False
    """It trains or scores on a GPU where it finds one (:attr:`System.uses_gpu`)."""


def system_names() -> list[str]:
    """The registered names: the built-in systems, then the entry points in name order."""
    extra = sorted({point.name for point in _entry_points() if point.name not in BUILTIN})
    return [*BUILTIN, *extra]


def resolve_system(spec: str | type[System] | Callable[[], System]) -> SystemSpec:
    """A system from a registered name, ``module:attribute``, a System subclass or a factory."""
    if isinstance(spec, str):
        target = _registered_target(spec)
        if target is None and ":" not in spec:
            raise UcdcrError(
                f"unknown system {spec!r}; registered systems: {', '.join(system_names())} "
                "(or give module:attribute for your own)"
            )
        origin = spec if target is None else target if spec in BUILTIN else f"entry point {spec} = {target}"
        return replace(_from_object(_import(target or spec), spec if target else None), origin=origin)
    return _from_object(spec, None)


def _entry_points() -> list[EntryPoint]:
    return BUILTIN.entry_points()


def _registered_target(name: str) -> str | None:
    """The ``module:attribute`` registered under ``name``: the built-in system's, else the entry point's; an entry
    point that takes a built-in system's name, or two entry points of that name, is an error."""
    points = list(dict.fromkeys(point.value for point in _entry_points() if point.name == name))
    builtin = BUILTIN[name].target if name in BUILTIN else None
    if builtin is not None:
        clash = [value for value in points if value != builtin]
        if clash:
            raise UcdcrError(
                f"the entry point {name} = {clash[0]} (group {ENTRY_POINT_GROUP}) uses the name of the built-in "
                f"system {name!r} ({builtin}); give it another name"
            )
        return builtin
    if len(points) > 1:
        raise UcdcrError(f"two entry points of group {ENTRY_POINT_GROUP} are named {name!r}: {', '.join(points)}")
    return points[0] if points else None


def _import(target: str) -> object:
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise UcdcrError(f"{target!r}: expected module:attribute (e.g. mysystems:MySystem)")
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, "")  # as `python -m` does: a module in the current folder can be named
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UcdcrError(f"{target}: cannot import the module {module_name!r}: {exc}") from None
    except (Exception, SystemExit) as exc:  # the module's own code failed: say where, not "a bug in ucdcr"
        raise UcdcrError(
            f"{target}: importing the module {module_name!r} failed in its own code ({_raised(exc)}); the fault is "
            "in that module"
        ) from exc
    try:
        value: object = module
        for part in attribute.split("."):
            value = getattr(value, part)
    except AttributeError:
        raise UcdcrError(f"{target}: the module {module_name!r} has no attribute {attribute!r}") from None
    return value


def _from_object(value: object, registered: str | None) -> SystemSpec:
    from ucdcr.systems.framework.base import System
    from ucdcr.systems.framework.identity import system_identity

    factory: Callable[[], System] | None = None
    if isinstance(value, type) and issubclass(value, System):
        system_class: type[System] = value
    elif callable(value) and not isinstance(value, type):
        factory = value
    else:
        raise UcdcrError(
            f"{_label(value)} is not a ucdcr.systems.System subclass or a function returning one "
            f"(found {type(value).__name__})"
        )
    make = _maker(value)
    instance = make()
    system_class = type(instance)
    name = registered or system_class.name or system_class.__name__
    _refuse_builtin_name(name, system_class)
    return SystemSpec(
        name,
        make,
        str(system_class.version),
        bool(system_class.trainable),
        bool(system_class.needs_encoder),
        system_identity(system_class, factory, instance),
        _origin(value, system_class),
        bool(system_class.deterministic),
        bool(system_class.uses_gpu),
    )


def _origin(value: object, system_class: type[System]) -> str:
    """``module:qualname`` of a class or function given in Python (of the class it made, for another callable)."""
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str):
        return f"{module}:{qualname}"
    return f"{system_class.__module__}:{system_class.__qualname__}"


def _refuse_builtin_name(name: str, system_class: type[System]) -> None:
    """A system named like a built-in system must be that built-in system (module docstring)."""
    builtin = BUILTIN[name].target if name in BUILTIN else None
    if builtin is not None and _import(builtin) is not system_class:
        raise UcdcrError(
            f"system {system_class.__qualname__} from module {system_class.__module__} uses the name of the "
            f"built-in system {name!r} ({builtin}); give it another `name`"
        )


def _maker(value: Callable[[], object]) -> Callable[[], System]:
    """A function making a new System from a class or factory; what the user's code raises, or a value that is no
    System, is one error naming it."""

    from ucdcr.systems.framework.base import System

    def make() -> System:
        try:
            made = value()
        except UcdcrError:
            raise
        except (Exception, SystemExit) as exc:
            raise UcdcrError(
                f"{_label(value)}: making the system failed in its own code ({_raised(exc)}); a system is a "
                "System subclass or a function without arguments returning one"
            ) from exc
        if not isinstance(made, System):
            raise UcdcrError(f"{_label(value)} returned {type(made).__name__}, not a ucdcr.systems.System")
        return made

    return make


def _raised(exc: BaseException) -> str:
    """What a user's code raised, in one line (``sys.exit(3)`` as SystemExit: 3)."""
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _label(value: object) -> str:
    return getattr(value, "__qualname__", None) or repr(value)
