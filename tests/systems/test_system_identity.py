"""A system's identity (code, version, configuration) keys its stored results, and the names of the reference
systems belong to them (names.py, identity.py, store.py)."""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import re
import subprocess
import sys
from collections.abc import Hashable, Mapping
from functools import partial
from pathlib import Path

import pytest
from tests.fixtures.bench_dataset import write_bench_dataset

from ucdcr.errors import UcdcrError
from ucdcr.systems import SplitData, System
from ucdcr.systems.framework import names as registry
from ucdcr.systems.framework.names import resolve_system
from ucdcr.systems.framework.runner import benchmark
from ucdcr.systems.framework.store import RESULTS_FILE, read_runs
from ucdcr.systems.reference.head_lemma import HeadLemma

SRC = Path(__file__).resolve().parents[2] / "src"


class Impostor(System):
    name = "head-lemma"

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        return dict.fromkeys(test.column("mention_id"), 0)


class QuietHeadLemma(HeadLemma):
    """A subclass that keeps the reference system's name."""


class SameHead(System):
    name = "mine"

    def __init__(self, lower: bool = False) -> None:
        self.lower = lower

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        heads = test.column("mention_head")
        return dict(zip(test.column("mention_id"), [h.lower() if self.lower else h for h in heads], strict=True))


class OneCluster(System):
    name = "mine"

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        return dict.fromkeys(test.column("mention_id"), 0)


@pytest.mark.parametrize("system", [Impostor, QuietHeadLemma, partial(Impostor)])
def test_a_system_taking_a_builtin_name_is_refused(system: type[System]) -> None:
    with pytest.raises(UcdcrError) as error:
        resolve_system(system)
    assert str(error.value).startswith(f"system {type(system()).__qualname__} from module {__name__} uses the name")
    assert (
        "of the built-in system 'head-lemma' (ucdcr.systems.reference.head_lemma:HeadLemma); give it another `name`"
        in str(error.value)
    )


def test_an_impostor_given_as_module_attribute_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "impostors.py").write_text(
        "from ucdcr.systems import System\n\nclass Fake(System):\n    name = 'pairwise'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UcdcrError, match="system Fake from module impostors uses the name of the built-in system"):
        resolve_system("impostors:Fake")
    real = resolve_system("head-lemma")
    assert resolve_system("ucdcr.systems.reference.head_lemma:HeadLemma") == real  # the same system, the same spec
    assert resolve_system(HeadLemma).identity == real.identity


def _points(monkeypatch: pytest.MonkeyPatch, *points: tuple[str, str]) -> None:
    found = [importlib.metadata.EntryPoint(name, value, registry.ENTRY_POINT_GROUP) for name, value in points]
    monkeypatch.setattr(registry, "_entry_points", lambda: found)


def test_an_entry_point_taking_a_builtin_name_or_two_of_one_name_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    _points(monkeypatch, ("head-lemma", f"{__name__}:Impostor"))
    clash = re.escape(f"the entry point head-lemma = {__name__}:Impostor (group ucdcr.systems) uses the name of")
    with pytest.raises(UcdcrError, match=clash):
        resolve_system("head-lemma")
    _points(monkeypatch, ("mine", f"{__name__}:SameHead"), ("mine", f"{__name__}:OneCluster"))
    with pytest.raises(UcdcrError, match=r"two entry points of group ucdcr\.systems are named 'mine'"):
        resolve_system("mine")
    _points(monkeypatch, ("mine", f"{__name__}:SameHead"), ("mine", f"{__name__}:SameHead"))  # installed twice
    assert resolve_system("mine").name == "mine"


def test_same_name_and_version_with_other_code_or_configuration_is_another_identity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain, lowered = resolve_system(partial(SameHead, False)), resolve_system(partial(SameHead, True))
    assert (plain.name, plain.version) == (lowered.name, lowered.version) and plain.identity != lowered.identity
    assert resolve_system(partial(SameHead, False)).identity == plain.identity
    assert resolve_system(SameHead).identity != resolve_system(OneCluster).identity
    source = "from ucdcr.systems import System\n\nclass Edited(System):\n    name = 'edited'\n"
    (tmp_path / "edited_system.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    before = resolve_system("edited_system:Edited").identity
    (tmp_path / "edited_system.py").write_text(source + "\n    def describe(self) -> str:\n        return 'edited'\n")
    importlib.reload(sys.modules["edited_system"])
    assert resolve_system("edited_system:Edited").identity != before


def test_the_identity_of_a_reference_system_is_the_same_in_every_process() -> None:
    code = "from ucdcr.systems.framework.names import resolve_system; print(resolve_system('pairwise').identity)"
    identities = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONPATH": str(SRC), "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert len(identities) == 1 and len(identities.pop()) == 64


def test_a_stored_run_is_reused_only_by_the_same_system(tmp_path: Path) -> None:
    folders = {"toy": write_bench_dataset(tmp_path / "toy")}
    cache = tmp_path / "cache"
    first = benchmark([SameHead], folders, cache_dir=cache)
    again = benchmark([SameHead], folders, cache_dir=cache)
    assert first.reused == 0 and again.reused == len(again.runs) == 1
    other = benchmark([OneCluster], folders, cache_dir=cache)  # same name "mine", same version "1"
    assert other.reused == 0 and other.runs[0].score() != first.runs[0].score()
    configured = benchmark([partial(SameHead, True)], folders, cache_dir=cache)
    assert configured.reused == 0
    [stored] = read_runs(cache / RESULTS_FILE).values()  # each new run replaced the one before it
    assert stored == configured.runs[0]


def test_the_code_of_a_system_includes_what_it_imports_inside_functions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "labsystems"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helpers.py").write_text("def key(head):\n    return head\n")
    (package / "mine.py").write_text(
        "from ucdcr.systems import System\n\n"
        "class Mine(System):\n"
        "    name = 'lab'\n\n"
        "    def predict(self, test):\n"
        "        from .helpers import key\n\n"
        "        return {m: key(h) for m, h in zip(test.column('mention_id'), test.column('mention_head'))}\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    from ucdcr.systems.framework.identity import code_files

    spec = resolve_system("labsystems.mine:Mine")
    files = code_files([spec.make().__class__])
    assert {"labsystems", "labsystems.mine", "labsystems.helpers", "ucdcr.systems.framework.base"} <= set(files)
    assert all(name.split(".")[0] in {"labsystems", "ucdcr"} for name in files)  # numpy, pyarrow: not followed
    (package / "helpers.py").write_text("def key(head):\n    return head.lower()\n")
    assert resolve_system("labsystems.mine:Mine").identity != spec.identity
