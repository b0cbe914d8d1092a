import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def cli():
    """The `prompt-suite` binary: $PROMPT_SUITE_CLI (set by `cargo xtask
    test`), else one on PATH; the tests that compare with it skip visibly
    without it."""
    path = os.environ.get("PROMPT_SUITE_CLI") or shutil.which("prompt-suite")
    if not path or not Path(path).exists():
        pytest.skip("no prompt-suite binary (set PROMPT_SUITE_CLI)")

    def run(*args, input=None):
        done = subprocess.run([path, *args], input=input, capture_output=True, check=False)
        return done

    return run
