"""The README's quick start says how to serve on another port than 8000 (issue 29, item 7), and
the Makefile does what it says: ``make run PORT=…`` and ``make serve PORT=…`` serve there."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _dry_run(*args: str) -> str:
    """What ``make ARGS`` would run (``make -n``: printed, nothing run)."""
    done = subprocess.run(["make", "-n", *args], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


def test_the_readme_names_port_and_make_serves_there():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "make run PORT=8001" in quick_start and "HOST=" in quick_start
    assert re.search(r"`make serve PORT=8001`", quick_start)
    run = _dry_run("run", "PORT=8001")
    assert "manage.py runserver 127.0.0.1:8001" in run
    assert "ensure_admin --url http://127.0.0.1:8001" in run  # the login it prints names that port
    assert "SKILL_CONSOLE_BIND=${SKILL_CONSOLE_BIND:-127.0.0.1:8001}" in _dry_run("serve", "PORT=8001")
