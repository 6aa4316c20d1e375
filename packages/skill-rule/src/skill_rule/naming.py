"""Model-facing names of MCP tools (docs/mcp.md, "Model-facing names"). Plain Python.

MCP allows tool names of ``A–Z a–z 0–9 _ - .`` up to 128 characters; model APIs accept
``^[a-zA-Z0-9_-]{1,64}$``. Every synced tool gets a model-facing name derived from its server and
its real name:

1. **Sanitise**: every character outside ``[A-Za-z0-9_-]`` becomes ``-`` (``read.file`` →
   ``read-file``); an empty result becomes ``tool``.
2. **Fit**: a name longer than 64 characters is cut to 55 and ``_`` plus the first 8 hex digits of
   the SHA-256 of ``server NUL tool`` are appended (deterministic, 64 characters).
3. **Builtins and other servers**: a name that is a builtin's, or that another server's tool
   already holds, becomes ``<server>__<name>`` (fitted) with a warning; never last-registered-wins.
4. **Within one server**: tools whose names become the same (``read-file`` and ``read.file``):
   the tool whose real name *is* that name keeps it (else the one that held it before); every
   other one gets ``_`` plus its 8-digit hash, with a warning.
5. **Stable**: a tool keeps the model-facing name it held after the previous sync as long as that
   name is still valid and no builtin, other server or sibling claims it (a binding never moves
   just because a conflict went away).
6. A real name listed twice by one server offers neither (warning).

Every warning is a ``Problem`` (the English sentence, with a code and params a page translates:
``naming_listed_twice``, ``naming_builtin``, ``naming_other_server``, ``naming_typed_in``,
``naming_collision``, ``naming_collision_held``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .errors import Problem
from .limits import BUILTIN_TOOL_NAMES, TOOL_NAME_PATTERN

MODEL_NAME_MAX_LENGTH = 64
HASH_LENGTH = 8
_DISALLOWED = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True)
class NamedTool:
    """One tool of a server: its real ``tool_name`` and the ``model_name`` the model sees, with the
    ``warning`` (a ``Problem``: the English sentence; empty when none) explaining a rename."""

    server: str
    tool_name: str
    model_name: str
    warning: Problem | str = ""


@dataclass(frozen=True)
class Naming:
    """What ``assign_model_names`` decided: ``tools`` in listing order (refused tools are absent),
    ``refused`` real names offered under no name, and every ``warnings`` sentence (``Problem``)."""

    tools: tuple[NamedTool, ...]
    refused: tuple[str, ...] = ()
    warnings: tuple[Problem | str, ...] = ()

    def by_tool(self) -> dict[str, str]:
        """Real name → model-facing name."""
        return {t.tool_name: t.model_name for t in self.tools}


def short_hash(server: str, tool_name: str) -> str:
    """First ``HASH_LENGTH`` hex digits of SHA-256 of ``server`` NUL ``tool_name`` (UTF-8)."""
    return hashlib.sha256(f"{server}\x00{tool_name}".encode()).hexdigest()[:HASH_LENGTH]  # str.encode() is UTF-8


def sanitize(name: str) -> str:
    """``name`` with every character outside ``[A-Za-z0-9_-]`` replaced by ``-`` (``tool`` when empty)."""
    return _DISALLOWED.sub("-", name or "") or "tool"


def fit(name: str, *, server: str, tool_name: str) -> str:
    """``name`` when it has at most 64 characters, else its first 55 characters, ``_`` and
    ``short_hash(server, tool_name)`` (exactly 64 characters)."""
    if len(name) <= MODEL_NAME_MAX_LENGTH:
        return name
    return f"{name[: MODEL_NAME_MAX_LENGTH - HASH_LENGTH - 1]}_{short_hash(server, tool_name)}"


def with_hash(name: str, *, server: str, tool_name: str) -> str:
    """``name`` + ``_`` + ``short_hash(server, tool_name)``, cut so the result has at most 64 characters."""
    return f"{name[: MODEL_NAME_MAX_LENGTH - HASH_LENGTH - 1]}_{short_hash(server, tool_name)}"


def is_model_name(name: str) -> bool:
    """True when ``name`` matches ``^[a-zA-Z0-9_-]{1,64}$``."""
    return isinstance(name, str) and TOOL_NAME_PATTERN.fullmatch(name) is not None


def assign_model_names(
    server: str,
    tool_names: Sequence[str],
    *,
    taken: Mapping[str, str] | None = None,
    held: Mapping[str, str] | None = None,
    builtins: Iterable[str] = BUILTIN_TOOL_NAMES,
) -> Naming:
    """Model-facing names for the tools ``server`` lists (real names, listing order).

    ``taken``: model-facing name → the *other* server holding it, or ``""`` for a tool definition
    typed in without a server (those names are never given away); ``held``: real name → the model-facing name this server's tool held after the last
    sync; ``builtins``: reserved names. Returns a ``Naming``; never raises. The rule is this
    module's docstring (docs/mcp.md).
    """
    taken = dict(taken or {})
    held = dict(held or {})
    reserved = set(builtins)
    warnings: list[Problem | str] = []

    counts: dict[str, int] = {}
    for n in tool_names:
        counts[n] = counts.get(n, 0) + 1
    refused = tuple(sorted(n for n, c in counts.items() if c > 1))
    for n in refused:
        warnings.append(
            Problem(
                "naming_listed_twice",
                "server '%(server)s' lists tool '%(tool)s' %(count)s times; none of them is offered",
                {"server": server, "tool": n, "count": counts[n]},
            )
        )
    names = [n for n in dict.fromkeys(tool_names) if counts[n] == 1]

    # 1–3: a candidate per tool, qualified by the server when a builtin or another server owns it
    candidate: dict[str, str] = {}
    note: dict[str, Problem] = {}
    for n in names:
        base = fit(sanitize(n), server=server, tool_name=n)
        if base in reserved or base in taken:
            holder = taken.get(base)
            qualified = fit(f"{sanitize(server)}__{base}", server=server, tool_name=n)
            if qualified in reserved or qualified in taken:
                qualified = with_hash(qualified, server=server, tool_name=n)
            offered = {"tool": n, "server": server, "name": qualified, "base": base}
            if base in reserved:
                code, owner = "naming_builtin", "a builtin tool"
            elif holder:
                code, owner = "naming_other_server", "server '%(holder)s'"
                offered["holder"] = holder
            else:
                code, owner = "naming_typed_in", "a tool definition typed in without a server"
            note[n] = Problem(
                code,
                "tool '%(tool)s' of server '%(server)s' is offered as '%(name)s': '%(base)s' is the name of " + owner,
                offered,
            )
            base = qualified
        candidate[n] = base

    # 5: keep a held name when nothing else claims it
    claimed_by_others: dict[str, set[str]] = {}
    for n, c in candidate.items():
        claimed_by_others.setdefault(c, set()).add(n)  # pragma: no mutate
    final: dict[str, str] = {}
    for n in names:
        h = held.get(n)
        if (
            h
            and is_model_name(h)
            and h not in reserved
            and h not in taken
            and claimed_by_others.get(h, set()) <= {n}  # pragma: no mutate
            and not any(held.get(m) == h for m in names if m != n)
        ):
            final[n] = h
            if h != candidate[n]:
                note.pop(n, None)

    # 4: within-server collisions among the rest, decided by the set of names, not their order
    groups: dict[str, list[str]] = {}
    for n in names:
        if n not in final:
            groups.setdefault(candidate[n], []).append(n)
    used = set(final.values())
    for c, members in sorted(groups.items()):
        members = sorted(members)
        if len(members) == 1 and c not in used:
            final[members[0]] = c
            used.add(c)  # pragma: no mutate
            continue
        keeper = None  # pragma: no mutate
        if c not in used:
            exact: list[str | None] = [m for m in members if m == c]
            before = [m for m in members if held.get(m) == c]
            keeper = (exact or before or [None])[0]
        if keeper is not None:
            final[keeper] = c
            used.add(c)  # pragma: no mutate
        for m in members:
            if m == keeper:
                continue
            renamed = with_hash(c, server=server, tool_name=m)
            final[m] = renamed
            used.add(renamed)
            others = ", ".join(f"'{x}'" for x in members if x != m)
            becomes = {"tool": m, "server": server, "name": renamed, "base": c}
            lead = "tool '%(tool)s' of server '%(server)s' is offered as '%(name)s': its name becomes '%(base)s', like "
            if others:
                note[m] = Problem("naming_collision", lead + "%(others)s", {**becomes, "others": others})
            else:
                note[m] = Problem(
                    "naming_collision_held", lead + "another tool's held name '%(held)s'", {**becomes, "held": c}
                )

    tools = tuple(NamedTool(server, n, final[n], note.get(n, "")) for n in names)
    warnings.extend(t.warning for t in tools if t.warning)
    return Naming(tools=tools, refused=refused, warnings=tuple(warnings))
