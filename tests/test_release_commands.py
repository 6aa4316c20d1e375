"""``manage.py publish``, ``publish --rollback``, ``api_key`` and the runtime key of
``ensure_admin`` (docs/releases.md)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from skills_app.catalog import services
from skills_app.models import IntentNode, Release, RuntimeKey, Skill


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_publish_prints_the_number_and_refusals_exit_non_zero(bitmall):
    assert run("publish", "--note", "first") == "1\n"
    with pytest.raises(CommandError) as refused:
        run("publish", "--note", "again")
    assert str(refused.value) == "publish refused:\n  - nothing changed since release 1"
    with pytest.raises(CommandError, match=r"^publish refused: a release needs a note: what changed and why\.$"):
        run("publish")


def test_publish_lists_every_reason_with_override_keys(bitmall):
    run("publish", "--note", "first")
    services.skill_update(skill=Skill.objects.get(skill_code="order_change"), tool_ids=["cancel_order"])
    IntentNode.objects.filter(mcp_tool_id="apply_after_sale").update(enabled=False)
    with pytest.raises(CommandError) as refused:
        run("publish", "--note", "second")
    lines = str(refused.value).splitlines()
    assert lines[0] == "publish refused:"
    assert lines[1] == (
        "  - skill 'after_sale_apply' gates apply_after_sale, which is not a registered tool "
        "(unknown, or its MCP node is disabled)"
    )
    assert lines[2] == (
        "  - scenario 'cancel-iphone': round 1: expected 11 tools, got 12   "
        "[override key: scenario:cancel-iphone:round 1: expected 11 tools, got 12]"
    )
    assert lines[3].startswith("  - scenario 'cancel-iphone': round 1: masked: ")
    assert [line[:45] for line in lines[4:]] == [
        "  - scenario 'cancel-iphone': round 2: masked",
        "  - scenario 'cancel-iphone': round 3: masked",
    ]
    assert Release.objects.count() == 1


def test_override_and_rollback(bitmall):
    run("publish", "--note", "first")
    services.skill_update(skill=Skill.objects.get(skill_code="order_change"), tool_ids=["cancel_order"])
    with pytest.raises(CommandError) as refused:
        run("publish", "--note", "second")
    keys = [line.split("[override key: ")[1][:-1] for line in str(refused.value).splitlines()[1:]]
    assert len(keys) == 2
    with pytest.raises(CommandError, match="write why"):
        run("publish", "--note", "second", *[a for k in keys for a in ("--override", k)])
    out = run(
        "publish",
        "--note",
        "second",
        *[a for k in keys for a in ("--override", k)],
        "--override-note",
        "change_address moves to its own manual",
        "--label",
        "production",
    )
    assert out == "2\n"
    two = Release.objects.get(number=2)
    assert (two.author_name, len(two.overrides), two.labels.get().name) == ("manage.py", 2, "production")
    assert run("publish", "--rollback", "1") == "3\n"
    three = Release.objects.get(number=3)
    assert (three.rollback_of, three.sha256, three.labels.get().name) == (
        1,
        Release.objects.get(number=1).sha256,
        "production",
    )
    with pytest.raises(CommandError, match="nothing changed since release 3"):
        run("publish", "--rollback", "1")
    with pytest.raises(CommandError, match="release 9 does not exist; releases: 1, 2, 3"):
        run("publish", "--rollback", "9")


def test_api_key_create_list_revoke(db):
    out = run("api_key", "create", "ragent", "--drafts")
    key = out.splitlines()[0].rsplit(": ", 1)[1]
    record = RuntimeKey.objects.get(name="ragent")
    assert out.splitlines()[0] == f"runtime API key 'ragent' (may read drafts): {key}"
    assert record.read_drafts and RuntimeKey.objects.get_from_key(key) == record
    assert key not in record.hashed_key and key not in record.id
    assert run("api_key", "list") == f"ragent\t{record.prefix}…\tusable\tdrafts: yes\tlast used: never\n"
    with pytest.raises(CommandError, match="a key named 'ragent' already exists"):
        run("api_key", "create", "ragent")
    assert run("api_key", "revoke", "ragent") == "revoked 1 key(s) named 'ragent'\n"
    with pytest.raises(CommandError, match="no usable key named 'ragent'"):
        run("api_key", "revoke", "ragent")


def test_ensure_admin_prints_the_runtime_key_once(db):
    first = run("ensure_admin")
    assert "runtime API key 'local-runtime' (shown once, keep it): " in first
    key = first.split("(shown once, keep it): ")[1].split("\n")[0]
    assert RuntimeKey.objects.get_from_key(key).name == "local-runtime"
    second = run("ensure_admin")
    assert key not in second
    assert (
        "runtime API key 'local-runtime' exists (shown only when it was created; "
        "make another: manage.py api_key create NAME)"
    ) in second


def test_load_demo_publishes_release_1_once_and_then_says_the_draft_differs(db):
    assert run("load_demo").splitlines()[1] == "published release 1 (demo catalog 'bitmall'); the runtime serves it"
    assert len(run("load_demo").splitlines()) == 1  # nothing to say: the draft is release 1
    services.skill_update(skill=Skill.objects.get(skill_code="iot_bundle"), name="智能家居套装（新）")
    assert run("load_demo").splitlines()[1] == (
        "the draft differs from release 1; the runtime serves releases only: publish on /publish/ or with: "
        "manage.py publish --note TEXT"
    )
    assert Release.objects.count() == 1
