"""``python manage.py simulate NAME_OR_YAML_FILE [--json]`` — run a scenario round by round."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from skill_rule.errors import DomainError
from skill_rule.scripts import parse_script
from skill_rule.simulator import simulate
from skills_app.catalog import selectors as catalog_selectors
from skills_app.simulation import selectors as simulation_selectors
from skills_app.simulation.reports import simulation_text


class Command(BaseCommand):
    help = "Simulate a saved scenario (by name) or a YAML script file against the draft catalog."

    def add_arguments(self, parser):
        parser.add_argument("target", help="a saved scenario name or a path to a YAML script")
        parser.add_argument(
            "--json", dest="as_json", action="store_true", help="print the rounds and the matrix as JSON"
        )
        parser.add_argument("--profile", dest="access_profile", default=None, help="access profile name")
        parser.add_argument("--stage", default=None, help="task stage name")
        parser.add_argument(
            "--allowed-tools",
            dest="allowed_tools",
            default=None,
            help="comma-separated MCP tool names the user may use (instead of a profile)",
        )

    def handle(self, *args, target: str, as_json: bool, access_profile, stage, allowed_tools, **options):
        text, source = self._read(target)
        try:
            script = parse_script(text, source=source)
            allowed = [t.strip() for t in allowed_tools.split(",") if t.strip()] if allowed_tools is not None else None
            result = simulate(
                catalog_selectors.catalog_draft(),
                script,
                access_profile=access_profile,
                stage=stage,
                allowed_tools=allowed,
            )
        except DomainError as exc:
            raise CommandError(exc.message) from None
        if as_json:
            self.stdout.write(_dumps(result.as_dict()))
        else:
            self.stdout.write(simulation_text(result))
        if result.stopped is not None:
            raise CommandError(str(result.stopped))  # the time budget (docs/simulator.md, "Limits")
        if not result.passed:
            raise CommandError(f"{len(result.failures)} expectation(s) not met: " + "; ".join(result.failures))

    def _read(self, target: str) -> tuple[str, str]:
        scenario = simulation_selectors.scenario_get(name=target)
        if scenario is not None:
            return scenario.script, f"scenario '{scenario.name}'"
        path = Path(target)
        if path.is_dir():
            raise CommandError(f"{path}: is a directory, not a YAML script")
        if path.is_file():
            try:
                return path.read_text(encoding="utf-8"), str(path)
            except UnicodeDecodeError as exc:
                raise CommandError(f"{path}: not UTF-8 text ({exc.reason})") from None
        names = ", ".join(s.name for s in simulation_selectors.scenario_list()) or "none saved"
        raise CommandError(f"{target}: no saved scenario by that name and no such file (saved scenarios: {names})")


def _dumps(data) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2)
