"""Writes of MCP servers and their tools (docs/mcp.md): a server's settings (its secrets kept
when the form sends the mask back), a tool's confirmation flag. Atomic and validated in full. The
sync itself lives in ``mcp.sync`` and runs as a task (``mcp.tasks``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from skills_app.core.writes import problem
from skills_app.models import (
    SECRET_MASK,
    McpServer,
    McpTool,
)


@transaction.atomic
def mcp_tool_save(
    *,
    name: str,
    title: str = "",
    description: str = "",
    input_schema: dict | None = None,
    annotations: dict | None = None,
    server: str = "",
) -> McpTool:
    """Create or update an MCP tool definition (as ``tools/list`` returns it)."""
    obj = McpTool.objects.filter(name=name).first() or McpTool(name=name)
    obj.title, obj.description = title, description
    obj.input_schema = input_schema or {"type": "object"}
    obj.annotations, obj.server = annotations or {}, server
    obj.full_clean()
    obj.save()
    return obj


def _secret_map(new: dict[str, str] | None, old: dict[str, str], field: str) -> dict[str, str]:
    """``new`` with every value equal to ``SECRET_MASK`` replaced by the stored value of that name
    (a page posts the mask back for a secret it did not change). Raises ``ValidationError`` on
    ``field`` (``headers`` / ``env``) naming each entry whose mask stands for no stored value — a
    renamed entry (``Authorization`` → ``authorization``) or a new one — rather than saving it
    empty: the secret would be lost without a word (docs/mcp.md)."""
    out, unknown = {}, []
    for k, v in (new or {}).items():
        if v != SECRET_MASK:
            out[k] = v
        elif k in old:
            out[k] = old[k]
        else:
            unknown.append(k)
    if unknown:
        raise ValidationError(
            {
                field: [
                    problem(
                        "secret_mask_unknown",
                        "%(name)s: %(mask)s stands for a stored value, but none is stored under this "
                        "name; type the value",
                        name=repr(k),
                        mask=SECRET_MASK,
                    )
                    for k in unknown
                ]
            }
        )
    return out


@transaction.atomic
def mcp_server_save(
    *,
    name: str,
    transport: str,
    command: str = "",
    args: Iterable[str] = (),
    env: dict[str, str] | None = None,
    url: str = "",
    headers: dict[str, str] | None = None,
    timeout_seconds: float | None = None,
    enabled: bool = True,
    instance: McpServer | None = None,
) -> McpServer:
    """Create an MCP server record, or update ``instance`` (its ``name`` is stable and cannot
    change). A header or env value equal to ``SECRET_MASK`` keeps the stored value. Raises
    ``ValidationError`` naming the field (nothing saved)."""
    server = instance or McpServer(name=name)
    if instance is not None and name != instance.name:
        raise ValidationError(
            {
                "name": [
                    problem("server_name_immutable", "server name '%(name)s' cannot be changed.", name=instance.name)
                ]
            }
        )
    old_headers, old_env = dict(server.headers or {}), dict(server.env or {})
    server.transport, server.command, server.args = transport, (command or "").strip(), list(args)
    server.env = _secret_map(env, old_env, "env")
    server.url, server.headers = (url or "").strip(), _secret_map(headers, old_headers, "headers")
    if timeout_seconds is not None:
        server.timeout_seconds = timeout_seconds
    server.enabled = enabled
    server.full_clean()
    server.save()
    return server


@transaction.atomic
def mcp_tool_set_confirm(*, tool: McpTool, require_confirm: bool | None, user: Any = None) -> McpTool:
    """Record the operator's explicit confirmation setting for ``tool`` (``None`` = follow the
    annotations again), with who and when (docs/mcp.md, "Confirmation")."""
    locked = McpTool.objects.select_for_update().get(pk=tool.pk)
    locked.require_confirm_override = require_confirm
    locked.confirm_set_by = getattr(user, "get_username", lambda: "")() if user is not None else "command"
    locked.confirm_set_at = timezone.now()
    locked.save(update_fields=["require_confirm_override", "confirm_set_by", "confirm_set_at"])  # pragma: no mutate
    return locked
