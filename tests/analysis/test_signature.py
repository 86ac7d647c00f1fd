"""The signature of a number (ucdcr.analysis.signature): its string, what must agree for two numbers to stand side
by side, and a table's one signature."""

from __future__ import annotations

import pytest

from ucdcr.analysis.protocol import STANDARD, UCDCR, Protocol
from ucdcr.analysis.signature import Signature, Units, combined


def _signature(fingerprint: str = "ab" * 32, **changes: object) -> Signature:
    fields: dict[str, object] = {
        "data": (("ecbplus", fingerprint),),
        "protocol": STANDARD,
        "units": (Units("ecbplus", 8, "gold-topic"),),
        "resamples": 1000,
        "seeds": (3,),
        "versions": ("0.3.0",),
    }
    fields.update(changes)
    return Signature(**fields)  # type: ignore[arg-type]


def test_the_string_names_every_field_in_order() -> None:
    assert str(_signature()) == (
        "ucdcr:0.3.0|data:ecbplus@abababab|split:test|protocol:standard|topics:gold|singletons:kept|mentions:gold|"
        "scorer:v8.01|ci:95%,1000x,ecbplus=8 gold-topic units|seeds:3"
    )
    stored = _signature(resamples=None, protocol=UCDCR, units=(Units("ecbplus", 20, "subtopic"),), seeds=(1,))
    assert str(stored).endswith(
        "protocol:ucdcr/subtopic|topics:gold|singletons:dropped|mentions:gold|"
        "scorer:v8.01|units:ecbplus=20 subtopic units|seeds:1"
    )
    no_singletons = Protocol("standard", topics="predicted", singletons=False)
    assert "|topics:predicted|singletons:removed|" in str(_signature(protocol=no_singletons))
    assert "|ci:-|" in str(_signature(resamples=0))


def test_version_seeds_and_units_are_told_not_compared() -> None:
    other = _signature(versions=("0.1.0",), seeds=(1,), units=(Units("ecbplus", 7, "gold-topic"),))
    assert other.key() == _signature().key() and other.differences(_signature()) == []
    changed = _signature(fingerprint="cd" * 32, mentions="predicted")
    assert changed.differences(_signature()) == [
        "data: ecbplus@cdcdcdcd vs ecbplus@abababab",
        "mentions: predicted vs gold",
    ]


def test_a_table_joins_its_datasets_seeds_and_versions_and_refuses_two_contents_of_one_dataset() -> None:
    np4e = _signature(data=(("np4e", "ef" * 32),), units=(Units("np4e", 1, "gold-topic"),), seeds=(1,))
    joined = combined([_signature(), np4e, _signature(versions=("0.1.0",))], resamples=1000)
    assert joined.data == (("ecbplus", "ab" * 32), ("np4e", "ef" * 32))
    assert (joined.seeds, joined.versions) == ((1, 3), ("0.1.0", "0.3.0"))
    assert "ucdcr:0.1.0,0.3.0|data:ecbplus@abababab,np4e@efefefef|" in str(joined)
    assert "ecbplus=8 gold-topic units,np4e=1 gold-topic unit|seeds:1-3" in str(joined)
    with pytest.raises(ValueError, match="data: ecbplus@abababab vs ecbplus@cdcdcdcd"):
        combined([_signature(), _signature(fingerprint="cd" * 32)])
    with pytest.raises(ValueError, match="protocol: standard vs ucdcr/subtopic"):
        combined([_signature(), _signature(protocol=UCDCR)])
