"""Child processes that never outlive the build: the kernel's parent-death signal.

:func:`kill_me_with_parent` asks Linux to SIGKILL the calling process when its parent dies (``PR_SET_PDEATHSIG``);
it returns False elsewhere. The local executor's pool workers call it (:mod:`ucdcr.pipeline.executor`).
"""

from __future__ import annotations

import ctypes
import signal
import sys

_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def kill_me_with_parent() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (AttributeError, OSError):
        return False
