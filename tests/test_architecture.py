"""docs/design.md, "Packages": the rule (``skill_rule``, packages/skill-rule) and the runtime client
(``skill_client``, packages/skill-client) are plain Python — no Django, DRF or gunicorn import anywhere
in them, directly or by reaching into the console (``skills_app``, ``console``) — and their
distributions require none of those either, so ``pip install`` of the client pulls no Django.
The same contracts run in CI as import-linter's (``make lint``, ``[tool.importlinter]``); this test
also reads every function-local import and follows the installed distributions' requirements."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
RULE = ROOT / "packages" / "skill-rule"
CLIENT = ROOT / "packages" / "skill-client"
#: import package → its source directory, and the top-level imports it must not make.
PACKAGES = {
    "skill_rule": (RULE / "src" / "skill_rule", ("skill_client",)),
    "skill_client": (CLIENT / "src" / "skill_client", ()),
}
#: Imports that would bring Django (or the console, which is Django) into a pure package.
FORBIDDEN_ROOTS = ("django", "rest_framework", "gunicorn", "skills_app", "console")
#: Distributions a pure package may never require, directly or through the other one.
FORBIDDEN_DISTRIBUTIONS = {"django", "djangorestframework", "gunicorn", "skill-console"}


def forbidden_imports(source: str, filename: str = "<src>", also: tuple[str, ...] = ()) -> list[str]:
    """``line: module`` for every import of Django, DRF, gunicorn or the console (``skills_app``,
    ``console``), of a module of ``also``, or a relative import that leaves the package
    (``from .. import x``)."""
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
            if top in FORBIDDEN_ROOTS or top in also or module.startswith(".."):
                found.append(f"{node.lineno}: {module}")
    return found


@pytest.mark.parametrize(
    ("source", "also", "found"),
    [
        ("import django\n", (), ["1: django"]),
        ("import os, django.db.models as m\n", (), ["1: django.db.models"]),
        ("x = 1\nfrom rest_framework import serializers\n", (), ["2: rest_framework"]),
        ("def f():\n    from django.conf import settings\n", (), ["2: django.conf"]),
        ("from ..models import Skill\n", (), ["1: ..models"]),
        ("from skills_app import services\n", (), ["1: skills_app"]),
        ("from skills_app.domain import rules\n", (), ["1: skills_app.domain"]),
        ("import skills_app.core.cache\n", (), ["1: skills_app.core.cache"]),
        ("import gunicorn\n", (), ["1: gunicorn"]),
        ("from skill_client import RuntimeClient\n", ("skill_client",), ["1: skill_client"]),
        ("from skill_client import RuntimeClient\n", (), []),
        ("from .rules import x\nfrom skill_rule.catalog import Tool\nimport yaml, json\n", ("skill_client",), []),
        ("import djangoish, consoles\n", (), []),
    ],
)
def test_the_scanner_finds_what_it_must(source: str, also: tuple[str, ...], found: list[str]) -> None:
    assert forbidden_imports(source, also=also) == found


def test_the_packages_have_modules_to_scan() -> None:
    assert {p.name for p in PACKAGES["skill_rule"][0].glob("*.py")} >= {
        "__init__.py",
        "catalog.py",
        "rules.py",
        "simulator.py",
        "validation.py",
        "runtime_catalog.py",
    }
    assert {p.name for p in PACKAGES["skill_client"][0].glob("*.py")} == {
        "__init__.py",
        "client.py",
        "conformance.py",
        "reporting.py",
    }


@pytest.mark.parametrize(
    ("package", "path"),
    [(name, path) for name, (src, _) in PACKAGES.items() for path in sorted(src.rglob("*.py"))],
    ids=lambda value: value if isinstance(value, str) else f"{value.parent.name}/{value.name}",
)
def test_pure_module_imports_no_django(package: str, path: Path) -> None:
    also = PACKAGES[package][1]
    assert forbidden_imports(path.read_text(encoding="utf-8"), str(path), also) == []


def test_importing_the_packages_loads_no_django_module(tmp_path: Path) -> None:
    """Every module of both packages, imported from their own source roots only (not the
    repository: the console is not on the path), loads neither Django nor DRF nor the console."""
    code = (
        "import importlib, pkgutil, sys\n"
        "for top in ('skill_rule', 'skill_client'):\n"
        "    package = importlib.import_module(top)\n"
        "    for info in pkgutil.walk_packages(package.__path__, top + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules}"
        " & {'django', 'rest_framework', 'gunicorn', 'skills_app', 'console'}),"
        " sorted(m for m in sys.modules if m.startswith('skill_client.')))\n"
    )
    path = f"{RULE / 'src'}:{CLIENT / 'src'}"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": path},
    )
    assert out.stdout.strip() == "[] ['skill_client.client', 'skill_client.conformance', 'skill_client.reporting']"


def _project(directory: Path) -> dict:
    return tomllib.loads((directory / "pyproject.toml").read_text("utf-8"))["project"]


def test_the_distributions_require_no_django() -> None:
    """The requirements of both distributions, the client's followed into the rule's, name exactly
    the rule's libraries and never Django, DRF, gunicorn or the console."""
    rule, client = _project(RULE), _project(CLIENT)
    rule_needs = {canonicalize_name(Requirement(r).name) for r in rule["dependencies"]}
    client_needs = {canonicalize_name(Requirement(r).name) for r in client["dependencies"]}
    assert (rule["name"], client["name"]) == ("skill-console-rule", "skill-console-client")
    assert rule_needs == {"pyyaml", "jsonschema", "referencing", "javaproperties"}
    assert client_needs == {"skill-console-rule"}
    assert not (rule_needs | client_needs) & FORBIDDEN_DISTRIBUTIONS
    console = {canonicalize_name(Requirement(r).name) for r in _project(ROOT)["dependencies"]}
    assert {"skill-console-rule", "skill-console-client"} <= console  # the console depends on both by name


def _closure(name: str) -> set[str]:
    """The installed distributions ``name`` needs, followed through every requirement without an
    extra (what ``pip install name`` pulls), ``name`` included."""
    seen: set[str] = set()
    todo = [canonicalize_name(name)]
    while todo:
        dist = todo.pop()
        if dist in seen:
            continue
        seen.add(dist)
        for text in metadata.requires(dist) or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(canonicalize_name(requirement.name))
    return seen


@pytest.mark.parametrize(("dist", "directory"), [("skill-console-rule", RULE), ("skill-console-client", CLIENT)])
def test_the_installed_distributions_pull_no_django(dist: str, directory: Path) -> None:
    """As installed (``make install``): the distribution's ``Requires-Dist`` is its pyproject's, its
    files are its source tree's, and everything it pulls, followed through the installed
    distributions, holds no Django, DRF, gunicorn or console."""
    assert sorted(metadata.requires(dist) or []) == sorted(
        str(Requirement(r)) for r in _project(directory)["dependencies"]
    )
    assert Path(metadata.distribution(dist).locate_file("")).exists()
    pulled = _closure(dist)
    assert not pulled & FORBIDDEN_DISTRIBUTIONS
    assert {"skill-console-rule", "pyyaml", "jsonschema"} <= pulled
    assert "django" in _closure("djangorestframework")  # the walk does follow real requirements
