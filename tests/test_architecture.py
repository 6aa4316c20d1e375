"""docs/design.md: ``skills_app/domain/`` is plain Python — no Django (or DRF) import anywhere in it,
directly or by reaching up into the rest of the app."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOMAIN = ROOT / "skills_app" / "domain"
FORBIDDEN_ROOTS = ("django", "rest_framework")


def forbidden_imports(source: str, filename: str = "<src>") -> list[str]:
    """``line: module`` for every import of Django, DRF, or a part of ``skills_app`` outside
    ``skills_app.domain`` (which is how Django would come in second-hand)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level >= 2:  # from .. import models
                modules = [("." * node.level) + (node.module or "")]
            elif node.level == 0:
                modules = [node.module or ""]
            else:
                continue
        else:
            continue
        for module in modules:
            top = module.split(".")[0]
            leaves_domain = module.startswith("..") or (top == "skills_app" and not (
                module == "skills_app.domain" or module.startswith("skills_app.domain.")))
            if top in FORBIDDEN_ROOTS or leaves_domain:
                found.append(f"{node.lineno}: {module}")
    return found


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import django\n", ["1: django"]),
        ("import os, django.db.models as m\n", ["1: django.db.models"]),
        ("x = 1\nfrom rest_framework import serializers\n", ["2: rest_framework"]),
        ("def f():\n    from django.conf import settings\n", ["2: django.conf"]),
        ("from ..models import Skill\n", ["1: ..models"]),
        ("from skills_app import services\n", ["1: skills_app"]),
        ("from .rules import x\nfrom skills_app.domain.catalog import Tool\nimport yaml, json\n", []),
        ("import djangoish\n", []),
    ],
)
def test_the_scanner_finds_what_it_must(source: str, found: list[str]) -> None:
    assert forbidden_imports(source) == found


def test_the_domain_package_has_modules_to_scan() -> None:
    assert {p.name for p in DOMAIN.glob("*.py")} >= {"catalog.py", "rules.py", "simulator.py", "validation.py"}


@pytest.mark.parametrize("path", sorted(DOMAIN.glob("*.py")), ids=lambda p: p.name)
def test_domain_module_imports_no_django(path: Path) -> None:
    assert forbidden_imports(path.read_text(encoding="utf-8"), str(path)) == []


def test_importing_the_domain_loads_no_django_module() -> None:
    code = ("import sys, skills_app.domain; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'django', 'rest_framework'}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "[]"
