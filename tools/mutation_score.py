"""Print the mutation score of the domain, the services, the releases and the MCP sync from mutmut's results.

Reads the ``mutants/**/*.py.meta`` files a ``mutmut run`` leaves (one per mutated source file:
``{"exit_code_by_key": {mutant name: exit code or null}}``) and prints, per part, the mutants
killed out of those checked, then lists every survivor by name (``mutmut show NAME`` prints its
diff); with ``--files``, also one line per source file that has a result. Run from the repository
root after ``mutmut run``; ``make mutation`` does both (docs/testing.md). Exit status 0 unless ``--fail-on-survivors`` is given and one survived.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from mutmut.stats import status_by_exit_code

#: The parts reported, each with the source files or folders (relative to mutmut's working directory) it covers.
PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("domain", ("src/skill_rule/",)),  # `make mutation-domain`: packages/skill-rule/src linked as src
    (
        "services",
        (
            "skills_app/catalog/services.py",
            "skills_app/simulation/services.py",
            "skills_app/mcp/services.py",
            "skills_app/keys/services.py",
        ),
    ),
    ("releases", ("skills_app/releases/services.py", "skills_app/releases/selectors.py")),
    ("sync", ("skills_app/mcp/sync.py",)),
)
#: Statuses that count as caught: a test failed, the run timed out, or the type checker refused it.
CAUGHT = {"killed", "timeout", "caught by type check", "segfault"}
#: Statuses not counted at all: mutants this run did not try.
UNTRIED = {"not checked", "skipped", "check was interrupted by user"}


def results(root: Path) -> dict[str, dict[str, str]]:
    """``{source path: {mutant name: status}}`` for every ``.meta`` file under ``root/mutants``."""
    out: dict[str, dict[str, str]] = {}
    for meta in sorted((root / "mutants").rglob("*.py.meta")):
        source = meta.relative_to(root / "mutants").as_posix()[: -len(".meta")]
        codes = json.loads(meta.read_text("utf-8")).get("exit_code_by_key", {})
        out[source] = {name: status_by_exit_code[code] for name, code in codes.items()}
    return out


def line(label: str, counts: Counter[str]) -> str:
    """``label: caught/checked caught of N mutants (statuses not caught)`` for one source file."""
    checked = sum(n for s, n in counts.items() if s not in UNTRIED)
    caught = sum(counts[s] for s in CAUGHT)
    rest = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()) if s not in CAUGHT | UNTRIED)
    return f"{label}: {caught}/{checked} caught of {sum(counts.values())} mutants" + (f" ({rest})" if rest else "")


def main(argv: list[str]) -> int:
    by_file = results(Path.cwd())
    if not by_file:
        print("no mutmut results under mutants/: run `make mutation` first")
        return 1
    survivors: list[str] = []
    for part, prefix in PARTS:
        counts: Counter[str] = Counter()
        for source, statuses in by_file.items():
            if source.startswith(prefix):
                counts.update(statuses.values())
                survivors += [n for n, s in statuses.items() if s not in CAUGHT | UNTRIED]
        checked = sum(n for s, n in counts.items() if s not in UNTRIED)
        caught = sum(counts[s] for s in CAUGHT)
        score = f"{100 * caught / checked:.1f}%" if checked else "n/a"
        rest = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()) if s not in CAUGHT) or "none left"
        print(f"{part:9} {score:>6}  {caught}/{checked} mutants caught  ({rest})")
        if "--files" in argv:  # one line per source file of the part that has a result
            for source, statuses in by_file.items():
                if source.startswith(prefix) and any(s not in UNTRIED for s in statuses.values()):
                    print("  " + line(source, Counter(statuses.values())))
    if survivors:
        print(f"\n{len(survivors)} not caught (`.venv/bin/mutmut show NAME` prints the change):")
        for name in sorted(survivors):
            print(f"  {name}")
    return 1 if survivors and "--fail-on-survivors" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
