"""``manage.py simulate`` and ``manage.py load_demo`` (ISSUE 2 "Done when"): the seed's numbers
11 / 13 / 13, the 6×3 matrix, the confirmation stop in round 3, clear one-line CLI errors, and an
idempotent, switchable demo loader."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from skills_app.models import AccessProfile, IntentNode, McpTool, Scenario, Skill, Stage

ROOT = Path(__file__).resolve().parent.parent
GATED = ["apply_after_sale", "cancel_order", "change_address", "update_cart_item", "create_order", "pay_order"]
STILL_MASKED = ["apply_after_sale", "update_cart_item", "create_order", "pay_order"]
M, R = "masked", "released"
SEED_MATRIX = {
    "apply_after_sale": [M, M, M],
    "cancel_order": [M, R, R],
    "change_address": [M, R, R],
    "update_cart_item": [M, M, M],
    "create_order": [M, M, M],
    "pay_order": [M, M, M],
}
BITMALL_SKILLS = {"after_sale_apply", "order_change", "fault_diagnosis", "order_checkout", "iot_bundle"}
RETURNS_SKILLS = {"policy", "return"}


def run_command(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def text_matrix(text: str) -> dict[str, list[str]]:
    """The gated-tool table printed after the rounds: tool → one state per round."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("gated tool"))
    rows = {}
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        tool, *states = line.split()
        rows[tool] = states
    return rows


def check_seed_text(text: str) -> None:
    heads = [line for line in text.splitlines() if line.startswith("round ")]
    assert [h.split(" · ")[1] for h in heads] == ["11 tools", "13 tools", "13 tools"]
    assert text_matrix(text) == SEED_MATRIX
    assert 'call cancel_order(order_no="88239") → confirm' in text
    assert text.rstrip().endswith("all expectations met")


def check_seed_json(doc: dict) -> None:
    rounds = doc["rounds"]
    assert [r["count"] for r in rounds] == [11, 13, 13]
    assert "cancel_order" not in rounds[0]["visible"]
    assert "cancel_order" in rounds[1]["visible"] and "cancel_order" in rounds[2]["visible"]
    assert list(rounds[0]["masked"]) == GATED
    assert list(rounds[1]["masked"]) == STILL_MASKED and list(rounds[2]["masked"]) == STILL_MASKED
    assert rounds[0]["masked"] == {
        "apply_after_sale": "after_sale_apply",
        "cancel_order": "order_change",
        "change_address": "order_change",
        "update_cart_item": "order_checkout",
        "create_order": "order_checkout",
        "pay_order": "order_checkout",
    }
    assert doc["matrix"] == SEED_MATRIX
    (cancel,) = rounds[2]["calls"]
    assert (cancel["name"], cancel["arguments"], cancel["verdict"], cancel["reason"]) == (
        "cancel_order",
        {"order_no": "88239"},
        "confirm",
        None,
    )
    assert doc["passed"] is True


# --- simulate through call_command ------------------------------------------------------------


def test_simulate_prints_the_seed_rounds_and_matrix(bitmall) -> None:
    check_seed_text(run_command("simulate", "cancel-iphone"))


def test_simulate_json_gives_the_seed_numbers(bitmall) -> None:
    check_seed_json(json.loads(run_command("simulate", "cancel-iphone", "--json")))


def test_simulate_a_missing_scenario_is_one_clear_line(bitmall) -> None:
    with pytest.raises(CommandError) as exc:
        run_command("simulate", "cancel-ipad")
    assert str(exc.value) == (
        "cancel-ipad: no saved scenario by that name and no such file (saved scenarios: cancel-iphone)"
    )


def test_simulate_an_invalid_yaml_file_names_file_and_line(bitmall, tmp_path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("name: broken\nsteps:\n  - user: hi\n   - assistant: x\n", encoding="utf-8")
    with pytest.raises(CommandError) as exc:
        run_command("simulate", str(path))
    assert str(exc.value) == f"{path}:4: invalid YAML: expected <block end>, but found '<block sequence start>'"


def test_simulate_a_malformed_step_names_file_and_line(bitmall, tmp_path) -> None:
    path = tmp_path / "bad-step.yaml"
    path.write_text("steps:\n  - user: hi\n  - assistant:\n      calls: cancel_order\n", encoding="utf-8")
    with pytest.raises(CommandError) as exc:
        run_command("simulate", str(path))
    assert str(exc.value) == f"{path}:4: 'calls' must be a list of {{tool_name: {{arguments}}}}"


def test_simulate_fails_when_a_scripts_expectation_is_not_met(bitmall, tmp_path) -> None:
    path = tmp_path / "wrong.yaml"
    path.write_text(
        "steps:\n  - user: hi\n  - assistant:\n      expect: {count: 13, includes: [cancel_order]}\n", encoding="utf-8"
    )
    with pytest.raises(CommandError) as exc:
        run_command("simulate", str(path))
    assert str(exc.value) == (
        "2 expectation(s) not met: round 1: expected 13 tools, got 11; round 1: expected 'cancel_order' to be visible"
    )


def test_simulate_an_unknown_profile_is_a_command_error(bitmall) -> None:
    with pytest.raises(CommandError) as exc:
        run_command("simulate", "cancel-iphone", "--profile", "vip")
    assert str(exc.value) == "unknown access profile 'vip'; access profiles on offer: none defined"


# --- load_demo --------------------------------------------------------------------------------


def snapshot() -> dict:
    return {
        "skills": sorted(Skill.objects.values_list("skill_code", "version", "deleted_at")),
        "nodes": IntentNode.objects.count(),
        "tools": McpTool.objects.count(),
        "scenarios": sorted(Scenario.objects.values_list("name", flat=True)),
        "profiles": AccessProfile.objects.count(),
        "stages": Stage.objects.count(),
    }


def test_load_demo_twice_is_idempotent(db) -> None:
    first = run_command("load_demo")
    before = snapshot()
    again = run_command("load_demo")
    assert snapshot() == before
    assert before["nodes"] == 29 and before["tools"] == 14 and before["scenarios"] == ["cancel-iphone"]
    assert {code for code, version, _ in before["skills"]} == BITMALL_SKILLS
    assert {version for _, version, _ in before["skills"]} == {1}
    assert first.startswith("loaded demo catalog 'bitmall': 29 intent nodes, 14 MCP tools, 5 skills")
    loaded, published = first.splitlines()
    assert published == "published release 1 (demo catalog 'bitmall'); the runtime serves it"
    assert again == loaded + "\n"  # the same catalog line; release 1 already serves it


def test_load_demo_leaves_staff_edits_alone(bitmall) -> None:
    from skills_app.catalog import services as catalog_services

    catalog_services.skill_update(skill=Skill.objects.get(skill_code="iot_bundle"), name="套装")
    run_command("load_demo")
    assert Skill.objects.live().get(skill_code="iot_bundle").name == "套装"


def test_load_demo_switches_catalogs_only_with_replace_and_backs_up_first(bitmall, settings) -> None:
    from skills_app.simulation import services as simulation_services

    simulation_services.scenario_save(name="mine", script="steps:\n  - assistant: {calls: []}\n")
    with pytest.raises(CommandError) as exc:
        run_command("load_demo", "returns")
    assert str(exc.value) == (
        "the database holds the 'bitmall' demo catalog; run again with --replace to switch "
        "to 'returns' (the current catalog is saved to a backup file first)"
    )
    assert {s.skill_code for s in Skill.objects.live()} == BITMALL_SKILLS

    out = run_command("load_demo", "returns", "--replace")
    backups = sorted((settings.VAR_DIR / "backups").glob("*-bitmall.json"))
    assert len(backups) == 1
    assert out.splitlines()[0] == (
        f"saved the previous catalog to {backups[0]} (restore it with: manage.py restore_catalog {backups[0]})"
    )
    assert out.splitlines()[1].startswith("switched to demo catalog 'returns'")
    assert {s.skill_code for s in Skill.objects.all()} == RETURNS_SKILLS
    assert sorted(Scenario.objects.values_list("name", flat=True)) == [
        "load-unknown-skill",
        "policy-query-member",
        "return-prepare",
        "return-prepare-no-tools",
        "return-query",
    ]
    assert set(IntentNode.objects.exclude(mcp_tool_id="").values_list("mcp_tool_id", flat=True)) == {
        "policy_search",
        "order_query",
        "prepare_return",
        "submit",
    }
    # `load_demo` without a name now tops up the returns demo instead of failing (make run keeps working)
    assert run_command("load_demo").startswith("loaded demo catalog 'returns'")

    # the backup brings back everything, staff's own scenario included
    out = run_command("restore_catalog", str(backups[0]))
    assert out.startswith(f"restored the catalog from {backups[0]}; the one it replaced is in ")
    assert {s.skill_code for s in Skill.objects.live()} == BITMALL_SKILLS
    assert set(Scenario.objects.values_list("name", flat=True)) == {"cancel-iphone", "mine"}
    check_seed_json(json.loads(run_command("simulate", "cancel-iphone", "--json")))

    out = run_command("load_demo", "returns", "--replace")
    out = run_command("load_demo", "bitmall", "--replace")
    assert out.splitlines()[1].startswith("switched to demo catalog 'bitmall'")
    assert {s.skill_code for s in Skill.objects.all()} == BITMALL_SKILLS
    check_seed_json(json.loads(run_command("simulate", "cancel-iphone", "--json")))


def test_restore_catalog_refuses_a_file_that_is_no_backup(bitmall, tmp_path) -> None:
    bad = tmp_path / "users.json"
    bad.write_text('[{"model": "auth.user", "pk": 99, "fields": {"username": "x", "password": ""}}]')
    with pytest.raises(CommandError) as exc:
        run_command("restore_catalog", str(bad))
    assert str(exc.value) == f"{bad}: not a catalog backup (holds auth.user)"
    with pytest.raises(CommandError) as exc:
        run_command("restore_catalog", str(tmp_path / "missing.json"))
    assert str(exc.value) == f"{tmp_path / 'missing.json'}: cannot read the backup (FileNotFoundError)"
    assert {s.skill_code for s in Skill.objects.live()} == BITMALL_SKILLS


def test_load_demo_refuses_over_a_catalog_staff_built(db) -> None:
    from skills_app.catalog import services as catalog_services

    catalog_services.intent_node_save(intent_code="mine", name="自建", kind="SYSTEM")
    assert run_command("load_demo").startswith("the database holds a catalog that staff built; no demo loaded")
    with pytest.raises(CommandError) as exc:
        run_command("load_demo", "bitmall")
    assert str(exc.value).startswith("the database holds a catalog that staff built; run again with --replace")
    assert list(IntentNode.objects.values_list("intent_code", flat=True)) == ["mine"]


def test_load_demo_an_unknown_name_lists_the_demos(db) -> None:
    with pytest.raises(CommandError) as exc:
        run_command("load_demo", "grocery")
    assert str(exc.value) == "unknown demo catalog 'grocery'; demo catalogs: bitmall, returns"


# --- one real run of manage.py against a fresh SQLite file ------------------------------------


@pytest.fixture(scope="module")
def manage(tmp_path_factory):
    """Run ``python manage.py …`` against a temporary SQLite database (migrated, demo loaded)."""
    env = {k: v for k, v in os.environ.items() if k not in ("SKILL_CONSOLE_DB", "DJANGO_SETTINGS_MODULE")}
    env["SKILL_CONSOLE_SQLITE"] = str(tmp_path_factory.mktemp("cli") / "cli.sqlite3")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
        )

    for setup in (("migrate", "--noinput", "-v0"), ("load_demo",)):
        done = run(*setup)
        assert done.returncode == 0, done.stderr
    return run


def test_manage_py_simulate_prints_the_seed_tables(manage) -> None:
    done = manage("simulate", "cancel-iphone")
    assert done.returncode == 0, done.stderr
    check_seed_text(done.stdout)
    done = manage("simulate", "cancel-iphone", "--json")
    assert done.returncode == 0, done.stderr
    check_seed_json(json.loads(done.stdout))


def test_manage_py_errors_exit_non_zero_with_one_line(manage, tmp_path) -> None:
    missing = manage("simulate", "no-such-scenario")
    assert missing.returncode != 0
    assert missing.stdout == ""
    assert missing.stderr.strip().splitlines() == [
        "CommandError: no-such-scenario: no saved scenario by that name and no such file "
        "(saved scenarios: cancel-iphone)"
    ]
    path = tmp_path / "broken.yaml"
    path.write_text("steps:\n  - user: [unclosed\n", encoding="utf-8")
    broken = manage("simulate", str(path))
    assert broken.returncode != 0
    (line,) = broken.stderr.strip().splitlines()
    assert line.startswith(f"CommandError: {path}:3: invalid YAML: ")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", "holds no skills and no intent nodes; the catalog was left as it is"),
        (
            "{}",
            "not a catalog backup: the file holds an object, not the list of records that load_demo --replace writes",
        ),
        ("garbage", "line 1, column 1: not JSON (Expecting value)"),
        (
            '[{"model": "skills_app.skill"}]',
            'not a catalog backup: record 1 is not a saved record (an object with "model", "pk" and "fields")',
        ),
        (
            '[{"model": "skills_app.skill", "pk": 1, "fields": {}}, "x"]',
            "not a catalog backup: record 2 is not a saved record",
        ),
        (
            '[{"model": "skills_app.skill", "pk": 7, "fields": {"sort_order": "abc"}}]',
            "record 1 (skills_app.skill 7) cannot be read: ",
        ),
    ],
)
def test_restore_catalog_refuses_empty_or_garbled_files_and_keeps_the_catalog(bitmall, tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    with pytest.raises(CommandError) as exc:
        run_command("restore_catalog", str(bad))
    assert str(exc.value).startswith(f"{bad}: {message}")
    assert "string indices" not in str(exc.value) and "DeserializationError" not in str(exc.value)
    assert {s.skill_code for s in Skill.objects.live()} == BITMALL_SKILLS


def test_restore_catalog_drops_editors_that_do_not_exist_here_and_new_rows_get_fresh_ids(
    bitmall, settings, django_user_model
) -> None:
    from skills_app.catalog import services as catalog_services

    editor = django_user_model.objects.create_user(username="gone", password="x")
    catalog_services.skill_update(skill=Skill.objects.get(skill_code="iot_bundle"), name="套装", user=editor)
    run_command("load_demo", "returns", "--replace")
    backup = next((settings.VAR_DIR / "backups").glob("*-bitmall.json"))
    editor.delete()
    run_command("restore_catalog", str(backup))
    restored = Skill.objects.get(skill_code="iot_bundle")
    assert (restored.name, restored.updated_by_id) == ("套装", None)
    # ids continue after the restored rows (PostgreSQL sequences are reset, as loaddata does)
    created = catalog_services.skill_create(skill_code="after_restore", name="新", description="新技能", content="手册")
    assert created.pk > max(Skill.objects.exclude(pk=created.pk).values_list("pk", flat=True))
