"""The Python blocks of docs/python.md and of the README run, in order,
from the repository's root, one namespace per page."""

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = [ROOT / "docs" / "python.md", ROOT / "README.md"]


def blocks(text):
    return [m.group(1) for m in re.finditer(r"^```python\n(.*?)^```", text, re.M | re.S)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_python_blocks_run(page, monkeypatch):
    found = blocks(page.read_text())
    assert found, f"{page.name} has no python block"
    monkeypatch.chdir(ROOT)
    namespace = {"__name__": "__docs__"}
    for i, code in enumerate(found):
        exec(compile(code, f"{page.name}#python-block-{i + 1}", "exec"), namespace)
