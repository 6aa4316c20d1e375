"""Support for the runtime API tests: endpoint URLs, the error-shape assertion, and message
builders in the docs/runtime-api.md shape and OpenAI chat shape (plain JSON-able dicts, as a runtime posts them).
"""

from __future__ import annotations

import json
from typing import Any

CATALOG = "/api/v1/runtime/catalog"
ROUNDS = "/api/v1/runtime/rounds"
LOAD_SKILL = "/api/v1/runtime/load-skill"
CHECK_CALL = "/api/v1/runtime/check-call"


def skill_url(code: str) -> str:
    return f"/api/v1/runtime/skills/{code}"


def error_of(response, status: int) -> dict[str, Any]:
    """Assert the status and the error shape of docs/runtime-api.md; return the inner ``error`` object."""
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "details"}
    return body["error"]


MARKER = "ragent_loaded_skill"
EVICTED = "[历史工具结果已省略，原长 2048 字]"
CANCEL_IPHONE = "那台iPhone 18 Pro Max我不想要了，还没发货吧？帮我取消"
USER = {"role": "user", "content": CANCEL_IPHONE}

#: Seed 000, second table: the six gated tools and the manual that releases each.
BITMALL_GATED = {
    "apply_after_sale": "after_sale_apply",
    "cancel_order": "order_change",
    "change_address": "order_change",
    "update_cart_item": "order_checkout",
    "create_order": "order_checkout",
    "pay_order": "order_checkout",
}


def call(name: str, arguments: dict[str, Any] | None = None, call_id: str = "c1") -> dict[str, Any]:
    """An assistant message making one call (docs/runtime-api.md shape)."""
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": call_id, "name": name, "arguments": arguments or {}}],
    }


def result(
    content: str, call_id: str = "c1", *, state: str = "success", metadata: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A tool result answering ``call_id``."""
    msg: dict[str, Any] = {"role": "tool", "tool_call_id": call_id, "content": content, "state": state}
    if metadata is not None:
        msg["metadata"] = metadata
    return msg


def manual_of(code: str, version: int | None = None) -> str:
    """The manual of skill ``code`` a runtime would have been given. Version 1 (or ``None``) of a
    demo skill: its manual file (``skills_app/demo/*/manuals/<code>.md``, as the demo loads it; no
    database needed, so a module-level transcript can hold it). Else the text a release in the test
    database published as ``version`` (newest release first), else the draft's, else
    ``"# manual"`` (a skill no catalog holds). Only a whole published manual loads a skill
    (docs/transcripts.md, "A whole published manual")."""
    from pathlib import Path

    from skills_app.models import Release, Skill

    if version in (None, 1):
        for path in sorted((Path(__file__).resolve().parents[2] / "skills_app" / "demo").glob(f"*/manuals/{code}.md")):
            return path.read_text(encoding="utf-8")

    for skills in Release.objects.order_by("-number").values_list("snapshot__skills", flat=True):
        for s in skills or ():
            if s.get("code") == code and (version is None or s.get("version") == version):
                return s["content"]
    skill = Skill.objects.filter(skill_code=code).first()
    return skill.content if skill is not None else "# manual"


def loaded(
    code: str,
    version: int = 1,
    call_id: str = "c1",
    *,
    content: str | None = None,
    state: str = "success",
    **metadata: Any,
) -> list[dict[str, Any]]:
    """A ``load_skill`` call and its full result carrying the marker; ``content`` by default the
    manual published as ``version`` (``manual_of``)."""
    meta = {MARKER: code, "skill_version": version, **metadata}
    return [
        call("load_skill", {"skill_code": code}, call_id),
        result(manual_of(code, version) if content is None else content, call_id, state=state, metadata=meta),
    ]


def openai_loaded(code: str, call_id: str = "call_1", content: str | None = None) -> list[dict[str, Any]]:
    """The same in OpenAI chat shape: ``function.arguments`` a JSON string, a result without
    metadata answering the call id; ``content`` by default the newest published manual."""
    content = manual_of(code) if content is None else content
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": "load_skill", "arguments": json.dumps({"skill_code": code})},
                },
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": content},
    ]


def publish(note: str = "test edit") -> int:
    """Publish the draft through the real service (as ``manage.py publish``); returns the number.

    The edits these tests make on purpose break the demo scenario's expectations: every unmet
    expectation is ticked off with a reason, as a publisher would on /publish/."""
    from skill_rule.releases import gate
    from skills_app.releases.selectors import publish_review
    from skills_app.releases.services import COMMAND_LINE, release_publish

    keys = [r.key for r in gate(publish_review()) if r.overridable]
    return release_publish(
        user=COMMAND_LINE, note=note, overrides=keys, override_note="the test changes the demo on purpose"
    ).number


def publish_draft(note: str = "test: the draft as it is now"):
    """Publish the current draft as a new release the runtime serves (the low-level
    ``release_create``, no gate: tests force rows the gate would refuse), moving ``production``
    to it when that label exists. Returns the release."""
    from skill_rule.snapshot import catalog_to_snapshot
    from skills_app.catalog import selectors
    from skills_app.models import ReleaseLabel
    from skills_app.releases import services as releases

    release = releases.release_create(
        snapshot=catalog_to_snapshot(selectors.catalog_draft()), user=releases.COMMAND_LINE, note=note
    )
    ReleaseLabel.objects.filter(name="production").update(release=release)
    return release
