"""The rule for a tool definition (docs/transcripts.md, "Tool definitions"), in one place that
every entry point calls: the console and the admin (``McpTool.clean`` / ``IntentNode.clean``),
``services.mcp_tool_save`` (demo loader), and MCP sync and import.

A definition that breaks it is refused where it enters; one already stored (written before the
rule, or by hand in SQL) is served with its problems (``Catalog.tool_problems``) and the guard
refuses calls to it — never a 500.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

import jsonschema
import referencing
import referencing.exceptions
import referencing.jsonschema

from .errors import Problem
from .limits import (
    SYNCED_TOOL_DESCRIPTION_MAX_LENGTH,
    SYNCED_TOOL_SCHEMA_MAX_BYTES,
    SYNCED_TOOL_TITLE_MAX_LENGTH,
    TOOL_NAME_PATTERN,
)
from .messages import shown

#: Nesting past this is refused rather than walked (a stored schema is untrusted input).
MAX_SCHEMA_DEPTH = 64


def validate_tool_name(name: Any) -> tuple[Problem, ...]:
    """Problems of a tool name: must match ``limits.TOOL_NAME_PATTERN`` (``^[a-zA-Z0-9_-]{1,64}$``,
    ASCII only). Code ``tool_name_invalid``; ``params["name"]`` is the name's ``repr`` so hidden
    characters show."""
    if isinstance(name, str) and TOOL_NAME_PATTERN.fullmatch(name):
        return ()
    return (
        Problem(
            "tool_name_invalid",
            "tool name %(name)s must be 1–64 ASCII letters, digits, '_' or '-' (what OpenAI and Anthropic accept)",
            {"name": repr(name)},
        ),
    )


def _refs(node: Any, depth: int = 0) -> Iterator[str]:
    if depth > MAX_SCHEMA_DEPTH:
        raise RecursionError
    if isinstance(node, Mapping):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield ref
        for key, value in node.items():
            if key in ("const", "enum", "default", "examples"):
                continue  # data, not schema
            yield from _refs(value, depth + 1)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value, depth + 1)


#: One meta-schema validator per draft, built once: ``check_schema`` builds a new one (and resolves
#: the meta-schema's references again) on every call, which made a 2,000-tool catalog take seconds.
_META_VALIDATORS: dict[type, Any] = {}


def _check_schema(cls: Any, schema: Any) -> None:
    """``cls.check_schema(schema)`` with the meta-schema validator kept: raises the same
    ``SchemaError`` (the first error ``iter_errors`` yields)."""
    validator = _META_VALIDATORS.get(cls)
    if validator is None:
        meta_cls = jsonschema.validators.validator_for(
            cls.META_SCHEMA,
            default=cls,  # pragma: no mutate
        )
        validator = _META_VALIDATORS[cls] = meta_cls(schema=cls.META_SCHEMA, format_checker=meta_cls.FORMAT_CHECKER)
    for error in validator.iter_errors(schema):
        raise jsonschema.exceptions.SchemaError.create_from(error)


#: The JSON Schema dialects an ``inputSchema`` may name in ``$schema`` (those ``jsonschema``
#: validates; a trailing ``#`` is the same URI). Any other ``$schema`` is ``input_schema_dialect``.
KNOWN_DIALECTS = (
    "http://json-schema.org/draft-03/schema",
    "http://json-schema.org/draft-04/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
)


def dialect_validator(schema: Any) -> Any:
    """The ``jsonschema`` validator class of ``schema``'s dialect: Draft 2020-12 when it has no
    ``$schema`` (MCP's default dialect), the draft its ``$schema`` names when that is one of
    ``KNOWN_DIALECTS``, ``None`` for any other ``$schema`` (a text naming another dialect, a
    number, ``null``) — never 2020-12 in its place (``jsonschema.validators.validator_for`` would
    silently use its latest draft). The tool-definition rule and the guard's argument check
    (``rules._validate_arguments``) both read the dialect here. Never raises."""
    if not isinstance(schema, Mapping) or "$schema" not in schema:
        return jsonschema.Draft202012Validator
    if not isinstance(schema["$schema"], str):
        return None
    try:
        return jsonschema.validators.validator_for(schema, default=None)  # type: ignore[arg-type]  # None: an unknown dialect
    except (TypeError, ValueError, AttributeError):  # a text urlsplit refuses ("http://[")
        return None


#: Problems of the schemas already checked, by their JSON text (a catalog is rebuilt per request
#: and per release, its tools' schemas are not): at most ``SCHEMA_CACHE_SIZE``, oldest dropped.
SCHEMA_CACHE_SIZE = 8192
_SCHEMA_PROBLEMS: dict[str, tuple[Problem, ...]] = {}


def validate_input_schema(schema: Any) -> tuple[Problem, ...]:
    """Problems of an MCP ``inputSchema``: a JSON object (``input_schema_not_object``) with
    ``"type": "object"`` (``input_schema_type``), whose ``$schema``, when it has one, names a
    dialect of ``KNOWN_DIALECTS`` (``input_schema_dialect``; the schema is then not checked
    further), that passes its draft's meta-schema check — draft 2020-12 unless ``$schema`` names
    another (``input_schema_invalid``) — and whose every
    ``$ref`` resolves inside the schema (``input_schema_ref``; nothing is fetched). Never raises.
    A schema already checked (same JSON text, key order included) is answered from a cache.
    """
    try:
        key = json.dumps(
            schema,
            ensure_ascii=False,  # pragma: no mutate
        )
        if json.loads(key) != schema:  # a tuple, a non-str key …: not plain JSON, not cached
            key = None
    except (TypeError, ValueError, RecursionError):
        key = None
    if key is not None:
        hit = _SCHEMA_PROBLEMS.get(key)
        if hit is None:
            hit = _validate_input_schema(schema)
            if len(_SCHEMA_PROBLEMS) >= SCHEMA_CACHE_SIZE:
                try:
                    _SCHEMA_PROBLEMS.pop(next(iter(_SCHEMA_PROBLEMS)))
                except (KeyError, RuntimeError, StopIteration):  # another thread got there first
                    pass
            _SCHEMA_PROBLEMS[key] = hit
        return hit
    return _validate_input_schema(schema)


def _validate_input_schema(schema: Any) -> tuple[Problem, ...]:
    if not isinstance(schema, Mapping):
        kind = "null" if schema is None else type(schema).__name__
        return (Problem("input_schema_not_object", "inputSchema must be a JSON object, got %(kind)s", {"kind": kind}),)
    problems: list[Problem] = []
    if schema.get("type") != "object":
        problems.append(
            Problem(
                "input_schema_type",
                'inputSchema must have "type": "object", got %(value)s',
                {"value": repr(schema.get("type"))},
            )
        )
    cls = dialect_validator(schema)
    if cls is None:
        return (
            *problems,
            Problem(
                "input_schema_dialect",
                "inputSchema $schema %(dialect)s names a JSON Schema dialect the console does not know (it knows "
                "drafts 3, 4, 6, 7, 2019-09 and 2020-12); the schema is not validated as another one",
                {"dialect": shown(schema["$schema"])},
            ),
        )
    try:
        _check_schema(cls, schema)
    except jsonschema.exceptions.SchemaError as exc:
        where = "/".join(str(p) for p in exc.path) or "(root)"  # pragma: no mutate
        return (
            *problems,
            Problem(
                "input_schema_invalid",
                "inputSchema is not a valid JSON Schema at %(where)s: %(cause)s",
                {"where": where, "cause": exc.message},
            ),
        )
    except (RecursionError, TypeError, ValueError) as exc:
        return (
            *problems,
            Problem(
                "input_schema_invalid",
                "inputSchema is not a valid JSON Schema at %(where)s: %(cause)s",
                {"where": "(root)", "cause": type(exc).__name__},
            ),
        )
    try:
        refs = sorted(set(_refs(schema)))
    except RecursionError:
        return (
            *problems,
            Problem(
                "input_schema_invalid",
                "inputSchema is not a valid JSON Schema at %(where)s: %(cause)s",
                {"where": "(root)", "cause": "nested too deeply"},
            ),
        )
    if refs:
        spec = referencing.jsonschema.specification_with(cls.META_SCHEMA["$schema"])  # each names its dialect
        resource = spec.create_resource(dict(schema))
        base = resource.id() or "urn:skill-console:input-schema"  # pragma: no mutate
        resolver = referencing.Registry().with_resource(base, resource).resolver(base_uri=base)
        for ref in refs:
            try:
                resolver.lookup(ref)
            except (
                referencing.exceptions.Unresolvable,
                referencing.exceptions.NoSuchResource,
                ValueError,
                TypeError,
                LookupError,
                AttributeError,
            ):
                problems.append(
                    Problem("input_schema_ref", "inputSchema $ref %(ref)s does not resolve", {"ref": repr(ref)})
                )
    return tuple(problems)


def validate_tool_definition(name: Any, input_schema: Any) -> tuple[Problem, ...]:
    """Every problem of one tool definition (``validate_tool_name`` + ``validate_input_schema``);
    empty when it may be served. The one validator every entry point calls."""
    return validate_tool_name(name) + validate_input_schema(input_schema)


def canonical_size(value: Any) -> int:
    """Bytes of ``value``'s canonical JSON (``snapshot.canonical_json``: sorted keys, separators
    ``,`` ``:``, UTF-8, not ``\\u``-escaped) — the size a release stores it at."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return len(text.encode())


def synced_tool_bound_problems(
    *, title: str, description: str, input_schema: Any, output_schema: Any = None
) -> tuple[Problem, ...]:
    """Every bound of ``limits`` a synced MCP tool's definition is past (docs/mcp.md, "Bounded
    definitions"), in the order title, description, inputSchema, outputSchema; empty when none.

    ``title`` and ``description`` are measured in characters (code points):
    ``SYNCED_TOOL_TITLE_MAX_LENGTH`` (1,024) and ``SYNCED_TOOL_DESCRIPTION_MAX_LENGTH`` (8,192);
    each schema in bytes of its canonical JSON (``canonical_size``), ``SYNCED_TOOL_SCHEMA_MAX_BYTES``
    (65,536); ``output_schema`` ``None`` is not measured. Codes ``tool_title_too_long``,
    ``tool_description_too_long``, ``tool_schema_too_large``; each sentence names the field, its
    size and the limit, e.g. ``description is 20,000 characters; the limit is 8,192``.
    """
    problems: list[Problem] = []
    for field, text, limit, code in (
        ("title", title, SYNCED_TOOL_TITLE_MAX_LENGTH, "tool_title_too_long"),
        ("description", description, SYNCED_TOOL_DESCRIPTION_MAX_LENGTH, "tool_description_too_long"),
    ):
        if len(text) > limit:
            problems.append(
                Problem(
                    code,
                    "%(field)s is %(size)s characters; the limit is %(limit)s",
                    {"field": field, "size": f"{len(text):,}", "limit": f"{limit:,}"},
                )
            )
    for field, schema in (("inputSchema", input_schema), ("outputSchema", output_schema)):
        if schema is None:
            continue
        size = canonical_size(schema)
        if size > SYNCED_TOOL_SCHEMA_MAX_BYTES:
            problems.append(
                Problem(
                    "tool_schema_too_large",
                    "%(field)s is %(size)s bytes of canonical JSON; the limit is %(limit)s",
                    {"field": field, "size": f"{size:,}", "limit": f"{SYNCED_TOOL_SCHEMA_MAX_BYTES:,}"},
                )
            )
    return tuple(problems)


#: The MCP tool annotations that are booleans (MCP spec, "Tool annotations"; ``title`` is a text).
BOOLEAN_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


class AnnotationReading(NamedTuple):
    """What a tool's MCP ``annotations`` say (``read_annotations``): ``plainly_read_only`` — the
    tool may run without confirmation and a gate on it may be called needless; ``needs_confirm``
    — its calls stop at a confirmation card (always ``not plainly_read_only``); ``problems`` — why
    the hints were doubted (``annotations_invalid``, ``annotations_contradictory``)."""

    plainly_read_only: bool
    needs_confirm: bool
    problems: tuple[Problem, ...]


def _invalid_hint(tool: str, where: str, value: Any) -> Problem:
    return Problem(
        "annotations_invalid",
        "tool %(tool)s: %(where)s is %(value)s, which MCP does not allow there (a hint is true or "
        "false, the annotations an object); its calls need confirmation",
        {"tool": repr(tool), "where": where, "value": shown(value)},
    )


def read_annotations(annotations: Any, *, tool: str = "") -> AnnotationReading:
    """Read a tool's MCP ``annotations`` fail-closed (docs/mcp.md, "Confirmation").

    Annotations are untrusted hints (MCP ``schema.ts``, ``ToolAnnotations``: "Clients should never
    make tool use decisions based on ToolAnnotations received from untrusted servers";
    ``destructiveHint`` is "meaningful only when ``readOnlyHint == false``"). A tool is *plainly read-only* only when ``readOnlyHint`` is exactly
    ``true``, ``destructiveHint`` is absent or exactly ``false`` and no boolean hint
    (``BOOLEAN_HINTS``) holds anything but ``true`` / ``false``. Everything else needs
    confirmation; the doubtful cases say why, naming ``tool``:

    - ``annotations_invalid``: the annotations are not an object (``params["where"]`` is
      ``annotations``), or a boolean hint holds another value (``"true"``, ``1``, ``null``;
      ``where`` is ``annotations.<hint>``): ``params`` ``tool``, ``where``, ``value`` (as the
      server wrote it, ``messages.shown``);
    - ``annotations_contradictory``: ``readOnlyHint`` and ``destructiveHint`` are both ``true``.

    ``{}`` and ``None`` (no annotations) are no problem: not read-only (the MCP default of
    ``readOnlyHint`` is false). Never raises.
    """
    if annotations is None:
        return AnnotationReading(False, True, ())
    if not isinstance(annotations, Mapping):
        return AnnotationReading(False, True, (_invalid_hint(tool, "annotations", annotations),))
    problems = tuple(
        _invalid_hint(tool, f"annotations.{hint}", annotations[hint])
        for hint in BOOLEAN_HINTS
        if hint in annotations and not isinstance(annotations[hint], bool)
    )
    read_only = annotations.get("readOnlyHint") is True
    if read_only and annotations.get("destructiveHint") is True:
        problems += (
            Problem(
                "annotations_contradictory",
                "tool %(tool)s: annotations say readOnlyHint true and destructiveHint true, which contradict each "
                "other; its calls need confirmation",
                {"tool": repr(tool)},
            ),
        )
    plain = read_only and not problems
    return AnnotationReading(plain, not plain, problems)
