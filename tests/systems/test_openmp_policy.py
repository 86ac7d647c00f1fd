"""torch is imported with its OpenMP threads sleeping while they wait, unless the user's environment chose."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import require_module

CODE = (
    "import os, sys\n"
    "from ucdcr.systems.framework.environment import require_torch\n"
    "require_torch()\n"
    "print(os.environ.get('OMP_WAIT_POLICY'), 'torch' in sys.modules)\n"
)


def _run(env: dict[str, str]) -> str:
    require_module("torch", "embed")
    done = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_torch_is_imported_with_the_passive_wait_policy() -> None:
    env = {key: value for key, value in os.environ.items() if key != "OMP_WAIT_POLICY"}
    assert _run(env) == "PASSIVE True"


def test_the_users_policy_is_kept() -> None:
    assert _run({**os.environ, "OMP_WAIT_POLICY": "ACTIVE"}) == "ACTIVE True"
