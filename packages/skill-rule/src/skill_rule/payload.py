"""What the model sees, exactly: the ``tools`` array a chat API receives for one round.

The rule (``rules.py``) decides *which* tools the model is given in a round; this module turns
those names into the exact definitions a runtime such as Ragent sends to the model
(docs/runtime-api.md, "What the model sees"):

* every builtin with its ``parameters`` and every MCP tool with its ``inputSchema``, unchanged;
* ``load_skill`` with a **generated** definition: its description is the catalog's
  ``load_skill_header`` followed by one line per enabled skill, ``- code（name）：description``
  (full-width parentheses and colon), in catalog order (``sort_order``, then code); its
  ``skill_code`` parameter is a required string whose JSON-Schema ``enum`` lists the enabled codes
  in the same order. No enabled skill → ``load_skill`` is not registered at all (docs/rule.md).
  Under the ``system_prompt`` placement (``Catalog.catalog_placement``, docs/runtime-api.md "Where
  the catalog goes") the description is the header alone, the ``enum`` still lists every enabled
  code, and the catalog lines are ``catalog_text``, the block a runtime puts in the system prompt.

Two wire shapes: OpenAI ``{"type": "function", "function": {"name", "description",
"parameters"}}`` and Anthropic ``{"name", "description", "input_schema"}``. Sizes are counted in
characters of the compact JSON text (``payload_chars``), never in tokens. Plain Python.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .catalog import Catalog, Tool, json_copy
from .errors import DomainError
from .limits import CATALOG_IN_SYSTEM_PROMPT, LOAD_SKILL

OPENAI = "openai"
ANTHROPIC = "anthropic"
NAMES = "names"
#: ``tools_format`` values: ``names`` is the plain name list of ``rounds`` (no ``tools`` array).
TOOLS_FORMATS = (NAMES, OPENAI, ANTHROPIC)
#: The formats that produce a ``tools`` array.
PAYLOAD_FORMATS = (OPENAI, ANTHROPIC)

SKILL_CODE = "skill_code"
SKILL_CODE_DESCRIPTION = "要加载的手册编码（skill_code），取值见工具描述中的手册清单。"
#: ``skill_code``'s description under the ``system_prompt`` placement: the list is in the system prompt.
SKILL_CODE_DESCRIPTION_SYSTEM_PROMPT = "要加载的手册编码（skill_code），取值见系统提示中的手册清单。"


class UnknownToolsFormatError(DomainError):
    """``tools_format`` is not ``openai`` or ``anthropic`` (``names`` has no array); the message
    names the value and the choices. Code ``invalid_tools_format`` (an API answers 400)."""

    code = "invalid_tools_format"

    def __init__(self, value: Any) -> None:
        self.value = value
        choices = ", ".join(PAYLOAD_FORMATS)
        super().__init__(
            f"unknown tools_format {value!r} for a tools array; choose one of: {choices}",
            details={"tools_format": value if isinstance(value, str) else repr(value)},
        )


def catalog_line(code: str, name: str, description: str) -> str:
    """One line of the ``load_skill`` catalog: ``- code（name）：description``.

    Full-width ``（`` ``）`` ``：`` as Ragent writes them; line breaks inside the description are
    folded to spaces so that one skill is always exactly one line.
    """
    flat = " ".join(description.split())
    return f"- {code}（{name}）：{flat}"


def catalog_lines(catalog: Catalog) -> tuple[str, ...]:
    """One ``catalog_line`` per enabled skill, in ``Catalog.enabled_skills`` order (``sort_order``,
    then code); ``()`` when no skill is enabled."""
    return tuple(catalog_line(s.code, s.name, s.description) for s in catalog.enabled_skills)


def catalog_text(catalog: Catalog) -> str | None:
    """The block a runtime puts in the system prompt under the ``system_prompt`` placement
    (docs/runtime-api.md, "Where the catalog goes"): the ``catalog_lines`` joined by ``"\\n"``, no
    header and no trailing newline — ``""`` when no skill is enabled. ``None`` under the
    ``tool_description`` placement (the lines are in ``load_skill``'s description instead)."""
    if catalog.catalog_placement != CATALOG_IN_SYSTEM_PROMPT:
        return None
    return "\n".join(catalog_lines(catalog))


@dataclass(frozen=True)
class ToolDefinition:
    """A tool as the model sees it, independent of the wire format.

    ``parameters`` is the JSON Schema of the arguments (a builtin's ``parameters``, an MCP tool's
    ``inputSchema``, or the generated ``load_skill`` schema).
    """

    name: str
    description: str
    parameters: Mapping[str, Any]

    def as_format(self, fmt: str) -> dict[str, Any]:
        """The wire shape of ``fmt`` (``openai`` or ``anthropic``), with fresh dicts.

        Raises ``UnknownToolsFormatError`` for any other value.
        """
        # A stored schema of the wrong shape is sent as it is; the round warns tool_definition_invalid.
        params = copy.deepcopy(json_copy(self.parameters))
        if fmt == OPENAI:
            return {
                "type": "function",
                "function": {"name": self.name, "description": self.description, "parameters": with_properties(params)},
            }
        if fmt == ANTHROPIC:
            return {"name": self.name, "description": self.description, "input_schema": params}
        raise UnknownToolsFormatError(fmt)


def schema_nodes(schema: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Mapping[str, Any]]]:
    """Every sub-schema of a JSON Schema reachable through ``properties``, ``items``,
    ``additionalProperties``, ``$defs`` / ``definitions`` and ``oneOf`` / ``allOf`` / ``anyOf``,
    root first, each with its path of keys (what OpenAI's errors call the ``context``:
    ``("properties", "paths")``). Values that are no mapping are skipped."""
    if not isinstance(schema, Mapping):
        return
    yield path, schema
    props = schema.get("properties")
    if isinstance(props, Mapping):
        for name, sub in props.items():
            yield from schema_nodes(sub, (*path, "properties", str(name)))
    items = schema.get("items")
    if isinstance(items, Mapping):
        yield from schema_nodes(items, (*path, "items"))
    elif isinstance(items, list):
        for i, sub in enumerate(items):
            yield from schema_nodes(sub, (*path, "items", str(i)))
    extra = schema.get("additionalProperties")
    if isinstance(extra, Mapping):
        yield from schema_nodes(extra, (*path, "additionalProperties"))
    for key in ("$defs", "definitions"):
        defs = schema.get(key)
        if isinstance(defs, Mapping):
            for name, sub in defs.items():
                yield from schema_nodes(sub, (*path, key, str(name)))
    for key in ("oneOf", "allOf", "anyOf"):
        subs = schema.get(key)
        if isinstance(subs, list):
            for i, sub in enumerate(subs):
                yield from schema_nodes(sub, (*path, key, str(i)))


def schema_types(schema: Mapping[str, Any]) -> frozenset[str]:
    """The names a schema's ``type`` gives (a string or a list of strings); empty when none."""
    t = schema.get("type")
    if isinstance(t, str):
        return frozenset((t,))
    if isinstance(t, list):
        return frozenset(x for x in t if isinstance(x, str))
    return frozenset()


def objects_without_properties(schema: Any) -> tuple[tuple[str, ...], ...]:
    """The paths (``schema_nodes``) of the object schemas in ``schema`` that have no
    ``properties`` — what OpenAI Chat Completions refuses ("object schema missing properties")."""
    return tuple(p for p, node in schema_nodes(schema) if "object" in schema_types(node) and "properties" not in node)


def with_properties(schema: Any) -> Any:
    """``schema`` (a fresh copy the caller owns) with ``"properties": {}`` added to every object
    schema without ``properties`` (``objects_without_properties``): the OpenAI payload's one
    rewrite, which keeps the meaning (no property named = any property, as before). Changed in
    place and returned; a schema that needs nothing is returned as it is. docs/providers.md."""
    for path in objects_without_properties(schema):
        node = schema
        for step in path:
            node = node[int(step)] if isinstance(node, list) else node[step]
        node["properties"] = {}
    return schema


def load_skill_definition(catalog: Catalog) -> ToolDefinition | None:
    """The generated ``load_skill`` definition, or ``None`` when no skill is enabled.

    ``description`` = ``catalog.load_skill_header`` + ``"\\n"`` + one ``catalog_line`` per enabled
    skill (``Catalog.enabled_skills`` order: ``sort_order``, then code), lines joined by ``"\\n"``;
    under the ``system_prompt`` placement the header alone (the lines are ``catalog_text``).
    ``parameters`` = the registered ``load_skill`` schema (when the catalog lists one) with
    ``properties.skill_code`` set to a string with ``enum`` = the enabled codes in that order, and
    ``skill_code`` in ``required`` — under either placement. Disabled skills appear nowhere.
    """
    skills = catalog.enabled_skills
    if not skills:
        return None
    in_prompt = catalog.catalog_placement == CATALOG_IN_SYSTEM_PROMPT
    lines = [catalog.load_skill_header.rstrip("\n"), *(() if in_prompt else catalog_lines(catalog))]
    registered = next((t for t in catalog.tools if t.name == LOAD_SKILL), None)
    schema: dict[str, Any] = copy.deepcopy(dict(registered.input_schema)) if registered else {}
    schema["type"] = "object"
    properties = dict(schema.get("properties") or {})
    code_schema = dict(properties.get(SKILL_CODE) or {})
    code_schema["type"] = "string"
    code_schema.setdefault("description", SKILL_CODE_DESCRIPTION_SYSTEM_PROMPT if in_prompt else SKILL_CODE_DESCRIPTION)
    code_schema["enum"] = [s.code for s in skills]
    properties[SKILL_CODE] = code_schema
    schema["properties"] = properties
    required = [r for r in (schema.get("required") or []) if r != SKILL_CODE]
    schema["required"] = [SKILL_CODE, *required]
    return ToolDefinition(name=LOAD_SKILL, description="\n".join(lines), parameters=schema)


def tool_definition(catalog: Catalog, tool: Tool) -> ToolDefinition:
    """``tool`` as the model sees it: ``load_skill`` generated, any other tool as registered."""
    if tool.name == LOAD_SKILL:
        generated = load_skill_definition(catalog)
        if generated is not None:
            return generated
    return ToolDefinition(name=tool.name, description=tool.description, parameters=tool.input_schema)


def tool_definitions(catalog: Catalog, visible_names: Iterable[str]) -> tuple[ToolDefinition, ...]:
    """The definitions of ``visible_names`` (a round's ``visible``), in the order given.

    A name that is no registered tool of ``catalog`` (``Catalog.tool``) is skipped: the payload
    only ever carries registered definitions.
    """
    out: list[ToolDefinition] = []
    for name in visible_names:
        tool = catalog.tool(name)
        if tool is not None:
            out.append(tool_definition(catalog, tool))
    return tuple(out)


def tools_payload(catalog: Catalog, visible_names: Iterable[str], fmt: str) -> list[dict[str, Any]]:
    """The exact ``tools`` array a chat API receives for a round.

    ``visible_names`` is the round's ``visible`` list (``RoundView.visible``, registration order);
    ``fmt`` is ``"openai"`` (``[{"type": "function", "function": {"name", "description",
    "parameters"}}]``) or ``"anthropic"`` (``[{"name", "description", "input_schema"}]``). Builtins
    carry their ``parameters``, MCP tools their ``inputSchema``, ``load_skill`` the generated
    definition (``load_skill_definition``). Raises ``UnknownToolsFormatError`` for another ``fmt``.
    """
    if fmt not in PAYLOAD_FORMATS:
        raise UnknownToolsFormatError(fmt)
    return [d.as_format(fmt) for d in tool_definitions(catalog, visible_names)]


def payload_json(tools: list[dict[str, Any]]) -> str:
    """The compact JSON text of a ``tools`` array: ``json.dumps(tools, ensure_ascii=False,
    separators=(",", ":"))`` — keys in the order built (not sorted), no whitespace between
    tokens, non-ASCII characters written as themselves (no ``\\uXXXX`` escapes)."""
    return json.dumps(tools, ensure_ascii=False, separators=(",", ":"))  # pragma: no mutate


def payload_chars(tools: list[dict[str, Any]]) -> int:
    """The size of a ``tools`` array in **characters**: ``len(payload_json(tools))``, i.e. the
    number of Unicode code points of the compact JSON text (a Chinese character counts 1; in Java
    that is ``s.codePointCount(0, s.length())``, not ``s.length()``). Never a token count."""
    return len(payload_json(tools))


@dataclass(frozen=True)
class PayloadDiff:
    """How a round's ``tools`` differs from the previous round's, by tool name.

    ``added`` / ``removed``: names in one array only (order of the array they are in);
    ``changed``: names in both whose definition differs (description, schema — e.g. the
    ``load_skill`` description after the catalog changed).
    """

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


def _by_name(tools: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for t in tools:
        name = t["function"]["name"] if "function" in t else t["name"]
        out[name] = t
    return out


def payload_diff(previous: Iterable[Mapping[str, Any]], current: Iterable[Mapping[str, Any]]) -> PayloadDiff:
    """Compare two ``tools`` arrays of the same format (``tools_payload`` output) by tool name."""
    before, after = _by_name(previous), _by_name(current)
    return PayloadDiff(
        added=tuple(n for n in after if n not in before),
        removed=tuple(n for n in before if n not in after),
        changed=tuple(n for n in after if n in before and before[n] != after[n]),
    )
