"""tools/mutmut_run.py: mutmut mutates the ``@transaction.atomic`` writes, each call in one transaction."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

pytest.importorskip("mutmut")

ROOT = Path(__file__).resolve().parent.parent

SOURCE = """\
from django.db import transaction


@transaction.atomic
def write(x):
    return x + 1


@transaction.atomic(using="other")
def other(x):
    return x + 1


def plain(x):
    return x + 1
"""


@pytest.fixture(scope="module")
def mutated() -> str:
    spec = importlib.util.spec_from_file_location("mutmut_run", ROOT / "tools" / "mutmut_run.py")
    launcher = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(launcher)  # patches mutmut at import, as `make mutation` runs it
    from mutmut.mutation import file_mutation

    return file_mutation.mutate_file_contents("example.py", SOURCE).code


def _copies(code: str, function: str) -> dict[str, str]:
    """The copies mutmut made of ``function`` (the original's and the mutants'), each with the line above it."""
    return {name: above for above, name in re.findall(rf"^(.*)\ndef (x_{function}__mutmut_\w+)\(", code, flags=re.M)}


def test_a_bare_transaction_atomic_function_is_mutated_like_an_undecorated_one(mutated):
    written = {name.replace("write", "plain") for name in _copies(mutated, "write")}
    assert written == set(_copies(mutated, "plain"))
    assert {"x_plain__mutmut_orig", "x_plain__mutmut_1", "x_plain__mutmut_2"} <= written


def test_the_decorator_stays_on_the_trampoline_only(mutated):
    assert "@transaction.atomic\n@_mutmut_mutated(mutants_x_write__mutmut)\ndef write(x):" in mutated
    assert set(_copies(mutated, "write").values()) == {""}


def test_a_decorator_with_arguments_is_still_left_alone(mutated):
    assert _copies(mutated, "other") == {}
