"""How to install an optional extra of ucdcr (``embed``, ``dist``, ``hf``, ``corefud``, ``test``), said the same way
everywhere.

ucdcr is not on a package index: it is installed from a source checkout (or a git URL). The hint therefore names
where this installation came from, read from pip's ``direct_url.json`` record (PEP 610):

- a local checkout: ``pip install -e '/path/to/checkout[embed]'`` (``-e`` only if it was installed editable);
- a VCS or archive URL: ``pip install 'ucdcr[embed] @ git+https://...@commit'``;
- unknown (e.g. running from a source tree on ``PYTHONPATH``): ``pip install -e '.[embed]'`` in the ucdcr checkout.
"""

from __future__ import annotations

import json
import shlex
from importlib import metadata
from typing import Any
from urllib.parse import unquote, urlparse

DISTRIBUTION = "ucdcr"


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
