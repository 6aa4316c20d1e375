"""``make run``'s setup steps (the manage.py commands its ``migrate``, ``demo`` and ``setup``
targets call, read from the Makefile) leave the synced demo MCP tools, and stay idempotent."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def make_run_steps() -> list[list[str]]:
    """The ``$(PY) manage.py …`` lines of the Makefile targets ``make run`` goes through."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    steps = []
    for target in ("migrate", "demo", "setup"):
        body = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", text, re.M).group(1)
        for line in body.splitlines():
            line = line.strip().replace("$(DEMO)", "")
            if line.startswith("$(PY) manage.py"):
                steps.append(shlex.split(line.removeprefix("$(PY) manage.py ")))
    return steps


def test_make_run_steps_leave_the_synced_demo_tools(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("SKILL_CONSOLE_DB", "DJANGO_SETTINGS_MODULE")}
    env["SKILL_CONSOLE_SQLITE"] = str(tmp_path / "run.sqlite3")
    env["SKILL_CONSOLE_VAR_DIR"] = str(tmp_path / "var")

    def manage(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
        )
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done

    steps = make_run_steps()
    assert ["sync_mcp", "--demo", "--trigger", "make run"] in steps
    outputs = [manage(*step).stdout for step in steps]
    joined = "\n".join(outputs)
    assert "registered the demo MCP server 'bitmall'" in joined
    assert "synced 'bitmall': 14 tools; 14 added; 0 removed; 0 changed" in joined
    # the sync filled in the call targets: published at once, so the runtime maps calls back
    assert (
        "published release 2 (call targets of the synced demo MCP server 'bitmall'); the runtime maps "
        "calls back to the server"
    ) in joined
    again = "\n".join(manage(*step).stdout for step in steps)  # make run a second time
    assert "synced 'bitmall': 14 tools; 0 added; 0 removed; 0 changed" in again
    assert "published release" not in again
    probe = manage(
        "shell",
        "-c",
        (
            "import json\n"
            "from skills_app.models import McpTool, McpSyncRecord\n"
            "from skills_app.releases.selectors import draft_sha256, release_latest\n"
            "tools = McpTool.objects.filter(mcp_server__name='bitmall', removed_at__isnull=True)\n"
            "print(json.dumps({'tools': sorted(t.name for t in tools), 'syncs': McpSyncRecord.objects.count(),"
            " 'triggers': sorted(set(McpSyncRecord.objects.values_list('trigger', flat=True))),"
            " 'unchanged': draft_sha256() == release_latest().sha256,"
            " 'latest': [release_latest().number, release_latest().snapshot['format'],"
            "  [t.get('server') for t in release_latest().snapshot['tools'] if t['name'] == 'cancel_order']]}))"
        ),
    )
    found = json.loads(probe.stdout.strip().splitlines()[-1])
    assert len(found["tools"]) == 14
    assert found["syncs"] == 2 and found["triggers"] == ["make run"]
    # the synced definitions equal the demo YAML's but for the call targets: release 2 (format 2,
    # release 1 plus the targets) describes the draft
    assert found["unchanged"] is True
    assert found["latest"] == [2, 2, ["bitmall"]]
