"""uCDCR's ids made from names: ``shortuuid.uuid(name)`` of the shortuuid library (1.x), reproduced.

uCDCR makes FCC-T subtopic ids, HyperCoref document ids and WEC-Eng subtopic and document ids this way, so keys
built here join with the authors' released files: uuid5 of the name (URL namespace for ``http(s)://`` names,
else DNS) written in shortuuid's base-57 alphabet, 22 characters.
"""

from __future__ import annotations

import uuid

_SHORTUUID_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def name_shortuuid(name: str) -> str:
    """``shortuuid.uuid(name)``: uuid5 (URL namespace for http(s) names, else DNS) in shortuuid's base-57, 22 chars."""
    namespace = uuid.NAMESPACE_URL if name.lower().startswith(("http://", "https://")) else uuid.NAMESPACE_DNS
    number = uuid.uuid5(namespace, name).int
    digits = []
    while number:
        number, digit = divmod(number, len(_SHORTUUID_ALPHABET))
        digits.append(_SHORTUUID_ALPHABET[digit])
    digits.extend(_SHORTUUID_ALPHABET[0] * max(22 - len(digits), 0))
    return "".join(reversed(digits))
