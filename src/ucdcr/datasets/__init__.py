"""One short declarative module per dataset (see :mod:`ucdcr.registry`).

``ucdcr.datasets`` is also the public function ``ucdcr.datasets()`` (:func:`ucdcr.api.datasets`). Once this
package is imported (the registry imports dataset modules on first lookup), Python binds the attribute
``ucdcr.datasets`` to the package, so the package is made callable and delegates to that function.
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _CallablePackage(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from ucdcr.api import datasets

        return datasets(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
