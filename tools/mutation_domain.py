"""Prepare the directory `make mutation-domain` runs mutmut in: the rule against its library tests.

The functions of the rule (``skill_rule``, ``packages/skill-rule/src/skill_rule/``) are reached by
the database tests too (the services call ``compute_round``): as a mutant of ``make mutation`` each
would build a test database and run the service tests, 20-40 s a mutant on a busy machine.
``make mutation-domain`` mutates the rule only and runs ``tests/domain`` only (no database): a
second or two a mutant. It is the one run that mutates the rule: mutmut names a mutant after the
file's path (``src/skill_rule/rules.py`` is module ``skill_rule.rules``, the ``src.`` prefix
dropped) and puts ``mutants/src`` first on ``sys.path``, so the directory links
``packages/skill-rule/src`` as ``src`` (``SRC_LINK``) and mutmut copies it (``source_paths``).

mutmut 3 reads its settings from ``[tool.mutmut]`` of the ``pyproject.toml`` in its working directory
and keeps its results in ``mutants/`` there; a change of the test selection resets every result.
So the domain run gets its own directory (``DIR``, default ``mutants-domain/``, git-ignored): links
to the sources, the tests and ``also_copy`` of the repository, and a ``pyproject.toml`` generated
from the repository's, identical but for ``only_mutate`` and ``pytest_add_cli_args_test_selection``
(``OVERRIDES``). Its results never mix with those of ``make mutation`` in ``mutants/``.

A module whose functions every simulator test reaches (``scripts.py``: each scenario is parsed)
costs 10-20 s a mutant against all of ``tests/domain``; naming its own test files instead
(``TESTS``, e.g. ``tests/domain/test_scripts.py tests/domain/test_scripts_exact.py``, with a
``DIR`` of its own) holds the module to its own tests, a stricter bar, at a second a mutant.

Usage: ``python tools/mutation_domain.py [DIR [TESTS...]]`` from the repository root (``make mutation-domain``
runs it, then ``mutmut run`` and ``tools/mutation_score.py`` inside ``DIR``). Exits non-zero when the
repository's ``[tool.mutmut]`` no longer has the two keys as arrays (the generated file is checked by
reading it back).
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

#: The keys of ``[tool.mutmut]`` replaced in the generated ``pyproject.toml``; the rest is kept.
OVERRIDES: dict[str, list[str]] = {
    "source_paths": ["skills_app", "src"],
    "only_mutate": ["src/skill_rule/*"],
    "pytest_add_cli_args_test_selection": ["tests/domain"],
}
#: The link made in the directory for the rule's source root: ``src`` → the repository's ``SRC_LINK["src"]``.
SRC_LINK: dict[str, str] = {"src": "packages/skill-rule/src"}


def domain_pyproject(text: str, tests: list[str] | None = None) -> str:
    """``text`` (a ``pyproject.toml``) with the ``OVERRIDES`` keys of ``[tool.mutmut]`` replaced;
    ``tests`` (paths under ``tests/domain``), when given, replaces the test selection of ``OVERRIDES``.

    Raises ``ValueError`` when a key is not there as a ``key = [...]`` array, or when the result does
    not read back as the original with exactly those keys changed.
    """
    start = text.index("\n[tool.mutmut]\n")
    following = re.search(r"(?m)^\[", text[start + 2 :])
    end = start + 2 + following.start() if following else len(text)
    section = text[start:end]
    overrides = dict(OVERRIDES)
    if tests:
        overrides["pytest_add_cli_args_test_selection"] = list(tests)
    for key, value in overrides.items():
        section, found = re.subn(rf"(?ms)^{key}\s*=\s*\[.*?\]", f"{key} = {json.dumps(value)}", section)
        if found != 1:
            raise ValueError(f"[tool.mutmut] {key}: expected one `{key} = [...]`, found {found}")
    out = text[:start] + section + text[end:]
    expected = tomllib.loads(text)
    expected["tool"]["mutmut"].update(overrides)
    if tomllib.loads(out) != expected:
        raise ValueError("the generated pyproject.toml differs from the repository's beyond OVERRIDES")
    return out


def prepare(root: Path, target: Path, tests: list[str] | None = None) -> None:
    """Make ``target`` a mutmut working directory for the domain run (see the module docstring).

    Raises ``ValueError`` for a test path that is not a file or directory under ``tests/domain``
    (another test would need the database the domain run does not set up)."""
    for test in tests or []:
        if not (Path(test).parts[:2] == ("tests", "domain") and (root / test).exists()):
            raise ValueError(f"{test}: not a test file or directory under tests/domain")
    target.mkdir(parents=True, exist_ok=True)
    text = (root / "pyproject.toml").read_text("utf-8")
    generated = domain_pyproject(text, tests)
    if (target / "pyproject.toml").exists() and (target / "pyproject.toml").read_text("utf-8") == generated:
        pass  # unchanged: keep its mtime, so mutmut sees no changed settings file
    else:
        (target / "pyproject.toml").write_text(generated, "utf-8")
    settings = tomllib.loads(text)["tool"]["mutmut"]
    links = {name: name for name in [*settings.get("source_paths", []), *settings.get("also_copy", []), "tests"]}
    links.update(SRC_LINK)
    for name, source in links.items():
        link = target / name
        if not link.is_symlink():
            link.symlink_to(Path("..") / source)  # target is directly under the repository root


def main(argv: list[str]) -> int:
    target = Path(argv[0] if argv else "mutants-domain")
    if len(target.parts) != 1:
        print("DIR must be a directory directly under the repository root", file=sys.stderr)
        return 2
    try:
        prepare(Path.cwd(), target, argv[1:])
    except ValueError as error:
        print(f"mutation-domain: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
