"""The one registry class (ucdcr.registries.Registry), as the datasets and the systems use it."""

from __future__ import annotations

import importlib.metadata

import pytest

from ucdcr import registry as datasets
from ucdcr.registries import Registry
from ucdcr.systems.framework import names as systems


def test_a_name_is_registered_once_and_kept_in_order() -> None:
    names: Registry[int] = Registry("thing", "ucdcr.things", {"b": 2, "a": 1})
    assert names.register("c", 3) == 3
    assert list(names) == ["b", "a", "c"] and names["a"] == 1 and "d" not in names and len(names) == 3
    with pytest.raises(ValueError, match="thing 'a' is registered twice"):
        names.register("a", 4)
    copy = names.copy()
    copy.register("d", 4)
    assert "d" not in names and list(copy) == ["b", "a", "c", "d"]


def test_the_entry_points_are_read_at_each_call(monkeypatch: pytest.MonkeyPatch) -> None:
    names: Registry[int] = Registry("thing", "ucdcr.things")
    assert names.entry_points() == []
    point = importlib.metadata.EntryPoint("mine", "mypackage:Mine", "ucdcr.things")
    monkeypatch.setattr("ucdcr.registries.entry_points", lambda group: [point] if group == "ucdcr.things" else [])
    assert names.entry_points() == [point]


def test_datasets_and_systems_share_it() -> None:
    assert isinstance(datasets._REGISTRY, Registry) and datasets._REGISTRY.group == "ucdcr.datasets"
    assert isinstance(systems.BUILTIN, Registry) and systems.BUILTIN.group == "ucdcr.systems"
