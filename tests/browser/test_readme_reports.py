"""The README's client example, end to end, in a real browser (issue 26, "Done when"): the bitmall
demo published as release 1 on the live server, a runtime key made as the README says
(``manage.py api_key create NAME``), the README's ``python`` block run as written (only its URL
swapped for the live server's) in its own process with reporting on — the client's default — and
left to exit, which sends what it queued. Then, logged in, the insights page for release 1 and a
range around today shows its three rounds, its one conversation, its one ``confirm`` (for
``cancel_order``) and its loaded ``order_change``; the fleet page shows its one instance, holding
release 1. Screenshots: /tmp/i26e-insights.png, /tmp/i26e-fleet.png."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command

from skills_app.models import RuntimeKey, RuntimeReport
from skills_app.releases.services import COMMAND_LINE, release_publish
from skills_app.web.charts import console_today
from tests.browser.conftest import login

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
README_URL = "http://127.0.0.1:8000"
SHOTS = Path("/tmp")


def readme_example() -> str:
    """The ``python`` block of the README's "Wiring an agent with the Python client", as written."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Wiring an agent with the Python client", 1)[1]
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert f'"{README_URL}"' in example and "RuntimeClient(" in example
    return example


def key_as_the_readme_says(name: str) -> str:
    """``manage.py api_key create NAME``: the key is the end of the line it prints."""
    out = io.StringIO()
    call_command("api_key", "create", name, stdout=out)
    match = re.search(rf"runtime API key '{name}': (\S+)", out.getvalue())
    assert match, out.getvalue()
    return match.group(1)


def run_example(url: str, key: str, tmp_path: Path) -> list[str]:
    """The README example in its own process against ``url``; returns what it printed. The process
    exits before this returns, so the client's exit flush has sent (or given up on) its reports."""
    script = tmp_path / "example.py"
    script.write_text(readme_example().replace(README_URL, url), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            # this checkout's rule and client, not whichever the environment installed
            "PYTHONPATH": os.pathsep.join(
                str(ROOT / p) for p in ("packages/skill-rule/src", "packages/skill-client/src")
            ),
            "SKILL_CONSOLE_KEY": key,
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
        },
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def _text(page, selector: str) -> str:
    return page.locator(selector).inner_text().strip()


def _rows(page, selector: str, attr: str) -> dict[str, dict[str, str]]:
    """``{row's attr: {data-n: text}}`` of the rows ``selector`` of a table."""
    return page.evaluate(
        """([selector, attr]) => Object.fromEntries([...document.querySelectorAll(selector)].map(tr => [
             tr.getAttribute(attr),
             Object.fromEntries([...tr.querySelectorAll("[data-n]")].map(td => [td.dataset.n, td.textContent.trim()]))]))""",
        [selector, attr],
    )


def test_the_readme_example_shows_on_the_insights_and_fleet_pages(page, console, tmp_path):
    release = release_publish(user=COMMAND_LINE, note="demo catalog 'bitmall'")
    assert release.number == 1
    key = key_as_the_readme_says("agent")

    printed = run_example(console, key, tmp_path)
    assert printed == [
        "round 1: 11 tools, load_skill: allowed",
        "round 2: 13 tools, query_order: allowed",
        "round 3: 13 tools, cancel_order: confirm",
    ]
    # The one instance the example ran as (the client names it ``<host>:<uuid hex>``), read from
    # the rounds it reported; empty when it reported nothing.
    instances = set(RuntimeReport.objects.filter(kind="round").values_list("instance", flat=True))

    login(page, console)
    today = console_today()
    page.goto(f"{console}/insights/")
    # the filter, as a person sets it: the release the example ran against, a range around today
    page.select_option("#id_release", "1")
    page.fill("#id_since", (today - timedelta(days=1)).isoformat())
    page.fill("#id_until", (today + timedelta(days=1)).isoformat())
    page.click("[data-insights-filter] button[type=submit]")
    page.wait_for_url(re.compile(r"/insights/\?.*release=1"))
    period = page.locator("[data-period]")
    assert (period.get_attribute("data-release"), period.get_attribute("data-since")) == (
        "1",
        (today - timedelta(days=1)).isoformat(),
    )
    page.screenshot(path=str(SHOTS / "i26e-insights.png"), full_page=True)
    assert page.locator("[data-no-reports]").count() == 0, "the insights page holds no report of the example"

    totals = {
        stat: _text(page, f"[data-totals] [data-stat={stat}] .value")
        for stat in ("rounds", "conversations", "loads", "masked_call", "refused", "confirm", "outdated")
    }
    assert totals == {
        "rounds": str(len(printed)),  # 3: one a round the example printed
        "conversations": "1",
        "loads": "1",
        "masked_call": "0",
        "refused": "0",
        "confirm": "1",
        "outdated": "0",
    }
    # the one confirmation, for the tool the example calls in round 3
    assert _rows(page, "[data-table=confirm] tr[data-confirm]", "data-confirm") == {"cancel_order": {"confirm": "1"}}
    # order_change: one load_skill call allowed, loaded in rounds 2 and 3
    assert _rows(page, "[data-table=loads] tr[data-skill]", "data-skill") == {
        "order_change": {"loads": "1", "rounds": "2"}
    }
    assert page.locator("[data-never-loaded] [data-never=order_change]").count() == 0
    # the day's numbers
    assert _rows(page, "[data-table=per-day] tr[data-day]", "data-day")[today.isoformat()] == {
        "rounds": "3",
        "conversations": "1",
        "refused": "0",
        "confirm": "1",
    }
    assert _text(page, "[data-totals] [data-stat=instances] .value") == "1"

    page.goto(f"{console}/fleet/")
    page.screenshot(path=str(SHOTS / "i26e-fleet.png"), full_page=True)
    rows = page.locator("[data-fleet] tr[data-instance]")
    assert rows.count() == 1, "the fleet page shows no instance of the example"
    row = rows.first
    instance = row.get_attribute("data-instance")
    assert re.fullmatch(r"[A-Za-z0-9._-]{1,24}:[0-9a-f]{32}", instance), instance
    assert instances == {instance}  # the instance that sent the rounds
    assert row.get_attribute("data-key-prefix") == RuntimeKey.objects.get(name="agent").prefix
    assert (row.get_attribute("data-stale"), row.get_attribute("data-unlabelled")) == ("0", "0")
    assert row.locator("[data-held]").get_attribute("data-held") == "1"  # the release it held
    assert row.locator("[data-held] a").inner_text().strip() == "#1"
    assert row.locator("[data-state]").get_attribute("data-state") == "fresh"
    assert row.locator("[data-refresh]").get_attribute("data-refresh") == "fetched"
    assert page.locator("[data-per-release] [data-release-count='1']").count() == 1
