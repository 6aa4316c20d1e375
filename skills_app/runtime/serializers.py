"""Serializers shared by the runtime endpoints (docs/runtime-api.md).

Per-endpoint input and output serializers live nested in their view (``views.py``); here are the
pieces several endpoints share: the message list, the tool call, the round restrictions, the
catalog items and the error shape. Messages are parsed by the domain (``parse_messages``), so a
bad message is refused with ``invalid_messages`` naming its 0-based index, exactly as in the
console and the CLI.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from django.core.validators import MaxLengthValidator
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from skill_rule import Message, ToolCall, parse_messages, providers
from skill_rule.limits import (
    MAX_CALLS_PER_ROUND,
    MAX_CALLS_PER_SCRIPT,
    MAX_MESSAGES,
    REPORT_CODE_MAX_CHARS,
    REPORT_CODE_PATTERN,
    REPORT_ID_MAX_CHARS,
    REPORT_ID_PATTERN,
    REPORT_MAX_FUTURE_SECONDS,
    REPORT_MAX_INT,
    REPORT_MAX_LIST_ITEMS,
    REPORT_NAME_MAX_CHARS,
    REPORT_SAMPLE_MAX_BYTES,
    REPORT_SAMPLE_MAX_MESSAGES,
    REPORT_TIME_MAX_CHARS,
    REPORT_VERSION_MAX_CHARS,
    REPORT_VERSION_PATTERN,
    SKILL_CODE_MAX_LENGTH,
    SKILL_CODE_MIN_LENGTH,
    SKILL_CODE_PATTERN,
    TOOL_NAME_MAX_LENGTH,
)
from skill_rule.messages import (
    ROLES,
    STATES,
    ambiguous_call,
    call_ambiguity,
    carrier_conflict,
    free_text_problem,
    parse_arguments,
)
from skill_rule.reports import FLAGS

# --- errors -----------------------------------------------------------------------------------


@extend_schema_serializer(component_name="ErrorBody")
class ErrorBodySerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable machine-readable reason, e.g. `invalid_messages`.")
    message = serializers.CharField(help_text="A sentence naming the item and the cause.")
    details = serializers.DictField(help_text="JSON details; field errors map a field path to messages.")


@extend_schema_serializer(component_name="Error")
class ErrorSerializer(serializers.Serializer):
    """``{"error": {"code", "message", "details"}}`` — every 4xx answer of the API."""

    error = ErrorBodySerializer()


# --- messages ---------------------------------------------------------------------------------


@extend_schema_serializer(component_name="ToolCall")
class ToolCallDocSerializer(serializers.Serializer):
    """A call in an assistant message (documentation of the accepted shape)."""

    id = serializers.CharField(required=False)
    name = serializers.CharField(help_text="Tool name (or OpenAI `function.name`).")
    arguments = serializers.JSONField(
        required=False, help_text="Object, or a JSON string of an object (OpenAI `function.arguments`)."
    )


@extend_schema_serializer(component_name="Message")
class MessageDocSerializer(serializers.Serializer):
    """A retained message, docs/runtime-api.md shape (OpenAI chat shape is accepted too)."""

    role = serializers.ChoiceField(choices=ROLES)
    content = serializers.CharField(required=False, allow_blank=True, allow_null=True)
    tool_calls = serializers.ListField(
        child=ToolCallDocSerializer(),
        required=False,
        max_length=MAX_CALLS_PER_ROUND,
        help_text=f"At most {MAX_CALLS_PER_ROUND} calls per message (a round); more → 400 invalid_messages.",
    )
    tool_call_id = serializers.CharField(required=False)
    state = serializers.ChoiceField(choices=STATES, required=False, help_text="Tool results; default success.")
    metadata = serializers.DictField(
        required=False, help_text='E.g. `{"ragent_loaded_skill": "order_change", "skill_version": 3}`.'
    )


class StrictInputSerializer(serializers.Serializer):
    """An input body that refuses keys it does not know: a misspelt ``stage`` or ``profile`` must
    be a 400 naming the key, never a silent "no restriction" (docs/rule.md)."""

    #: Keys accepted besides the declared fields (e.g. OpenAI's call shape).
    extra_keys: frozenset[str] = frozenset()

    def get_fields(self) -> dict[str, serializers.Field]:
        """The declared fields for this instance: a shallow copy of each leaf field, a deep copy of
        a nested serializer (DRF's own default for every field).

        DRF deep-copies every declared field per instance, re-running each one's ``__init__`` (and
        a list field's child's): 0.05 ms of each runtime request on an eight-field body
        (docs/benchmarks.md, "rounds"). A leaf field keeps no per-request state but what
        ``bind()`` sets on the copy (its name and parent); what the copies share — validators,
        choices, error messages, a list field's child — is built in ``__init__`` and only read
        afterwards, so no request sees another's. A nested serializer keeps its bound fields,
        so it is deep-copied as DRF does.
        """
        return {
            name: copy.deepcopy(field) if isinstance(field, serializers.BaseSerializer) else copy.copy(field)
            for name, field in self._declared_fields.items()
        }

    def validate(self, attrs: Any) -> Any:
        if isinstance(self.initial_data, dict):
            known = set(self.fields) | set(self.extra_keys)
            unknown = sorted(set(self.initial_data) - known)
            if unknown:
                on_offer = ", ".join(sorted(set(self.fields)))
                raise serializers.ValidationError(
                    {key: [f"unknown field '{key}'; fields: {on_offer}."] for key in unknown}
                )
        return super().validate(attrs)


@extend_schema_field(MessageDocSerializer(many=True))
class MessagesField(serializers.Field):
    """The retained messages of a conversation → ``tuple[skill_rule.Message, ...]``.

    Parsed by ``skill_rule.parse_messages`` (docs/runtime-api.md and OpenAI chat shapes). A bad
    message raises the domain's ``MessageError`` (not a field error), which the exception handler
    answers with 400 ``invalid_messages`` and ``details = {"index", "cause"}``.
    """

    def __init__(self, **kwargs: Any) -> None:
        limits = (
            f"At most {MAX_MESSAGES} messages, {MAX_CALLS_PER_ROUND} calls per message and "
            f"{MAX_CALLS_PER_SCRIPT} calls in all; past a limit → 400 invalid_messages naming the message."
        )
        kwargs["help_text"] = f"{kwargs['help_text']} {limits}" if kwargs.get("help_text") else limits
        super().__init__(**kwargs)
        # Stated in the OpenAPI schema as ``maxItems`` (drf-spectacular reads field validators);
        # enforced by ``parse_messages`` on the list as sent (see ``run_validators``).
        self.validators.append(MaxLengthValidator(MAX_MESSAGES))

    def run_validators(self, value: Any) -> None:
        """Nothing to run: ``parse_messages`` already refused a list of more than ``MAX_MESSAGES``
        items, and an Anthropic message may expand into several, so the parsed tuple may be longer."""

    def to_internal_value(self, data: Any) -> tuple[Message, ...]:
        return parse_messages(data)

    def to_representation(self, value: Any) -> list[dict[str, Any]]:
        return [m.as_dict() for m in value]


#: The skill-code rule of docs/design.md as a JSON Schema string (``SKILL_CODE_PATTERN`` without
#: Python's ``\A`` / ``\Z`` anchors, which JSON Schema's ECMA-262 regexes do not know).
SKILL_CODE_SCHEMA = {
    "type": "string",
    "minLength": SKILL_CODE_MIN_LENGTH,
    "maxLength": SKILL_CODE_MAX_LENGTH,
    "pattern": "^" + SKILL_CODE_PATTERN.pattern.removeprefix("\\A").removesuffix("\\Z") + "$",
}


@extend_schema_field(SKILL_CODE_SCHEMA)
class SkillCodeField(serializers.CharField):
    """A skill code exactly as sent (no trimming). The schema states the rule; the view checks it
    (``is_valid_skill_code``) so a bad code is the 400 ``invalid_skill_code`` naming it."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)


# --- calls and restrictions -------------------------------------------------------------------


class StrictCharField(serializers.CharField):
    """A string exactly as sent: a number, boolean or anything else is refused ("Not a valid
    string."), never turned into its text — a call named ``123`` is a client bug to report, not a
    tool to look up."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


@extend_schema_serializer(component_name="CallInput")
class CallInputSerializer(serializers.Serializer):
    """A tool call to check → ``skill_rule.ToolCall``.

    ``{"name", "arguments"}`` with ``arguments`` an object or a JSON string of one; OpenAI's
    ``{"id", "type": "function", "function": {"name", "arguments"}}``, an Anthropic ``tool_use``
    block and an OpenAI Responses ``function_call`` item (``call_id``, ``name``, ``arguments``)
    are accepted too; a Responses ``custom_tool_call`` (free-text ``input``) is read as a call
    whose arguments cannot be read — refused ``invalid_arguments`` (docs/transcripts.md).
    """

    id = serializers.CharField(required=False, allow_blank=True, default="", trim_whitespace=False)
    name = StrictCharField(max_length=TOOL_NAME_MAX_LENGTH)
    arguments = serializers.JSONField(required=False, default=dict, allow_null=True)

    def to_internal_value(self, data: Any) -> Any:
        # JSON readers disagree on the call outside its arguments (a key twice: "name" and "name"):
        # noted before the shape is unwrapped, refused by the guard (docs/transcripts.md, "Ambiguous JSON")
        ambiguity = call_ambiguity(data) or carrier_conflict(data)
        if isinstance(data, dict) and isinstance(data.get("function"), dict):
            data = {"id": data.get("id") or "", **data["function"]}
        if isinstance(data, dict) and data.get("type") == "tool_use" and "input" in data:  # Anthropic block
            data = {"id": data.get("id") or "", "name": data.get("name"), "arguments": data["input"]}
        if isinstance(data, dict) and data.get("type") == "function_call":  # OpenAI Responses item
            data = {"id": data.get("call_id") or "", "name": data.get("name"), "arguments": data.get("arguments", {})}
        if isinstance(data, dict) and data.get("type") == "custom_tool_call":  # free-text input: never arguments
            call_id = data.get("call_id")
            attrs = super().to_internal_value(
                {"id": call_id if isinstance(call_id, str) else "", "name": data.get("name"), "arguments": {}}
            )
            return {**attrs, "free_text": True, "ambiguity": ambiguity}
        if isinstance(data, dict) and "id" in data and not isinstance(data["id"], str):
            # an id of another type (5, null) is no id: the call's round is found by its name and
            # arguments, never by the id's text (docs/rule.md, "The round of a call")
            data = {**data, "id": ""}
        attrs = super().to_internal_value(data)
        attrs["ambiguity"] = ambiguity
        return attrs

    def validate(self, attrs: dict[str, Any]) -> ToolCall:
        if attrs.get("free_text"):  # a custom_tool_call: refused invalid_arguments (docs/transcripts.md)
            return ToolCall(
                name=attrs["name"], arguments={}, id=attrs.get("id") or "", problem=free_text_problem(attrs["name"])
            )
        # Arguments are read by the domain: bad ones are a refused verdict (invalid_arguments), not a 400.
        if attrs.get("ambiguity"):
            return ToolCall(
                name=attrs["name"],
                arguments={},
                id=attrs.get("id") or "",
                problem=ambiguous_call(attrs["name"], attrs["ambiguity"]),
            )
        arguments, problem = parse_arguments(attrs["arguments"], name=attrs["name"])
        return ToolCall(name=attrs["name"], arguments=arguments, id=attrs.get("id") or "", problem=problem)


class ReleaseField(serializers.IntegerField):
    """A release number (≥ 1); absent or ``null`` = the default release."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault("help_text", "Pin release N. Omit for the release labelled `production`, else the latest.")
        super().__init__(**kwargs)


class LabelField(serializers.CharField):
    """A release label name (``production``, ``staging`` …); absent or ``null`` = the default."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("max_length", 64)
        kwargs.setdefault("help_text", "Pin the release this label points at (404 `label_not_found` if none).")
        super().__init__(**kwargs)


class DraftField(serializers.BooleanField):
    """``true`` = answer from the live draft (a key created with ``--drafts`` only)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("default", False)
        kwargs.setdefault(
            "help_text",
            "Answer from the unpublished draft; needs a key allowed to read drafts "
            "(403 `drafts_not_allowed` otherwise).",
        )
        super().__init__(**kwargs)


@extend_schema_serializer(component_name="ReleaseQuery")
class ReleaseQuerySerializer(serializers.Serializer):
    """``?release=N`` / ``?label=NAME`` / ``?draft=1`` on any runtime endpoint. Any other query
    parameter is a 400 naming it: a misspelt ``?relase=2`` must not silently serve the default
    release (the bodies refuse unknown keys the same way, ``StrictInputSerializer``)."""

    release = ReleaseField()
    label = LabelField()
    draft = DraftField()

    def validate(self, attrs: Any) -> Any:
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            on_offer = ", ".join(self.fields)
            raise serializers.ValidationError(
                {key: [f"unknown query parameter '{key}'; parameters: {on_offer}."] for key in unknown}
            )
        getlist = getattr(self.initial_data, "getlist", None)
        repeated = [key for key in self.fields if getlist is not None and len(getlist(key)) > 1]
        if repeated:  # ?release=2&release=1 must not quietly serve one of them
            raise serializers.ValidationError(
                {
                    key: [f"query parameter '{key}' is given {len(getlist(key))} times; give it once."]
                    for key in repeated
                }
            )
        return super().validate(attrs)


class RoundInputSerializer(StrictInputSerializer):
    """Base input of the endpoints that compute a round: messages, restrictions, release."""

    messages = MessagesField(help_text="Messages retained in context at this moment.")
    access_profile = serializers.CharField(
        required=False,
        allow_null=True,
        allow_blank=True,
        help_text="Access profile name; empty or null = none; unknown → 400 unknown_restriction.",
    )
    allowed_tools = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        allow_null=True,
        help_text="Explicit MCP tool names the user may use (stands in for or narrows a profile).",
    )
    stage = serializers.CharField(
        required=False,
        allow_null=True,
        allow_blank=True,
        help_text="Task stage name; empty or null = none; unknown → 400 unknown_restriction.",
    )
    release = ReleaseField()
    label = LabelField()
    draft = DraftField()

    def restrictions(self) -> dict[str, Any]:
        """Keyword arguments for ``compute_round`` / ``check_call``."""
        data = self.validated_data
        return {
            "access_profile": data.get("access_profile") or None,
            "stage": data.get("stage") or None,
            "allowed_tools": data.get("allowed_tools"),
        }


# --- catalog items ----------------------------------------------------------------------------


@extend_schema_serializer(component_name="BuiltinTool")
class BuiltinToolSerializer(serializers.Serializer):
    name = serializers.CharField()
    description = serializers.CharField()
    parameters = serializers.DictField(help_text="JSON Schema of the arguments.")


@extend_schema_serializer(component_name="McpTool")
class McpToolSerializer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    description = serializers.CharField()
    inputSchema = serializers.JSONField(help_text="JSON Schema of the arguments (MCP `inputSchema`), as stored.")
    annotations = serializers.JSONField(help_text="MCP tool annotations.")
    require_confirm = serializers.BooleanField()
    server = serializers.CharField(
        allow_null=True,
        help_text="Name of the MCP server record the tool was synced from: where a call to `name` goes. "
        "Null for a tool typed in without a server (the runtime runs it by `name`). "
        'docs/mcp.md, "How a runtime maps calls back".',
    )
    mcp_name = serializers.CharField(
        allow_null=True,
        help_text="The tool's real name on `server` (MCP allows `.` and up to 128 characters; `name` is the "
        "model-facing name derived from it). Send `tools/call` with this name. Null when `server` is.",
    )
    problems = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Present only when the stored definition is invalid: why (calls to it are refused "
        "`invalid_tool_definition`; docs/transcripts.md).",
    )


@extend_schema_serializer(component_name="CallTarget")
class CallTargetSerializer(serializers.Serializer):
    """Where an allowed (or confirmed) call to an MCP tool goes (``domain.Tool.call_target``)."""

    server = serializers.CharField(help_text="The MCP server record's name.")
    tool = serializers.CharField(help_text="The tool's real name on that server (`tools/call` `name`).")


@extend_schema_serializer(component_name="SkillTool")
class SkillToolSerializer(serializers.Serializer):
    """One tool a manual gates, with its call target (``runtime/skills/{code}``)."""

    name = serializers.CharField(help_text="Model-facing name (one of `tool_ids`).")
    server = serializers.CharField(
        allow_null=True,
        help_text="MCP server record the tool was synced from; null for a tool with no server "
        "or one this release does not register.",
    )
    mcp_name = serializers.CharField(
        allow_null=True, help_text="The tool's real name on `server`; null when `server` is."
    )


@extend_schema_serializer(component_name="ManualDigest")
class ManualDigestSerializer(serializers.Serializer):
    """A published manual without its text (docs/transcripts.md, "A whole published manual"): a
    result holds it when some occurrence of ``head`` in its whitespace-normalised content starts
    ``chars`` characters whose SHA-256 is ``sha256``."""

    version = serializers.IntegerField(min_value=1, help_text="The skill version it was published as.")
    sha256 = serializers.CharField(help_text="Hex SHA-256 of the whitespace-normalised manual (UTF-8).")
    chars = serializers.IntegerField(min_value=0, help_text="Length of the normalised manual in code points.")
    head = serializers.CharField(allow_blank=True, help_text="Its first 32 normalised characters.")


@extend_schema_serializer(component_name="CatalogSkill")
class CatalogSkillSerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    tool_ids = serializers.ListField(child=serializers.CharField(), help_text="MCP tools this manual gates.")
    sort_order = serializers.IntegerField()
    version = serializers.IntegerField()
    content_sha256 = serializers.CharField(help_text="Hex SHA-256 of the manual's markdown (UTF-8).")
    earlier_manuals = ManualDigestSerializer(
        many=True,
        required=False,
        help_text="Earlier published manuals of this skill (lower versions, other texts), newest first: a retained "
        "load_skill result holding one of them still loads the skill, as that version (manual_outdated). "
        'Absent when there are none (docs/transcripts.md, "A whole published manual").',
    )


@extend_schema_serializer(component_name="RoundWarning")
class WarningSerializer(serializers.Serializer):
    """One warning of a round (docs/transcripts.md, "Warnings")."""

    code = serializers.CharField(allow_null=True, help_text="Stable code, e.g. `arguments_unparseable`.")
    index = serializers.IntegerField(allow_null=True, help_text="0-based index of the message it names, if any.")
    message = serializers.CharField(help_text="The English sentence (also in `warnings`).")


@extend_schema_serializer(component_name="PayloadProblem")
class PayloadProblemSerializer(serializers.Serializer):
    """One provider problem of a round's tools payload (``skill_rule.providers``, docs/providers.md)."""

    target = serializers.ChoiceField(
        choices=list(providers.PROFILES), help_text="The provider target (openai_chat, anthropic_messages, …)."
    )
    tool = serializers.CharField(allow_null=True, help_text="The tool; `null` for a rule of the whole array.")
    rule = serializers.CharField(
        help_text="Stable rule code: tool_count, name_pattern, name_length, description_length, "
        "object_without_properties, array_without_items, top_level_combinator, payload_budget."
    )
    limit = serializers.JSONField(help_text="What the rule allows: a number, a pattern or a key name.")
    actual = serializers.JSONField(help_text="The value found (a number, the name, the keyword; `null` when absent).")
    action = serializers.ChoiceField(
        choices=[providers.REFUSED, providers.OVER_BUDGET, providers.REWRITTEN],
        help_text="`refused`: the provider answers 400 to the whole request; `over_budget`: larger than the "
        "target's budget (characters); `rewritten`: fixed in that target's payload only (in `tools`).",
    )
    path = serializers.CharField(
        allow_blank=True, help_text="Where in the tool's parameter schema (dotted keys; empty for the root)."
    )


@extend_schema_serializer(component_name="Restriction")
class RestrictionSerializer(serializers.Serializer):
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    tools = serializers.ListField(child=serializers.CharField(), help_text="MCP tool names, registration order.")


# --- what the model sees (tools_format) -------------------------------------------------------


@extend_schema_serializer(component_name="OpenAiFunction")
class OpenAiFunctionSerializer(serializers.Serializer):
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    parameters = serializers.DictField(help_text="JSON Schema: a builtin's parameters or an MCP tool's inputSchema.")


@extend_schema_serializer(component_name="OpenAiTool")
class OpenAiToolSerializer(serializers.Serializer):
    """One entry of OpenAI's chat ``tools`` array."""

    type = serializers.ChoiceField(choices=["function"])
    function = OpenAiFunctionSerializer()


@extend_schema_serializer(component_name="AnthropicTool")
class AnthropicToolSerializer(serializers.Serializer):
    """One entry of Anthropic's messages ``tools`` array."""

    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    input_schema = serializers.DictField(help_text="JSON Schema: a builtin's parameters or an MCP tool's inputSchema.")


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="ChatTool",
        serializers=[OpenAiToolSerializer, AnthropicToolSerializer],
        resource_type_field_name=None,
        many=True,
    )
)
class ToolsPayloadField(serializers.JSONField):
    """The ``tools`` array of ``skill_rule.payload.tools_payload``, passed through as built."""


# --- reports (POST runtime/reports) -----------------------------------------------------------
#
# The shape of a batch is read by ``skill_rule.reports.parse_reports`` (one rule for every
# record, with the index and field in its 400); these serializers only state it in the OpenAPI
# schema, with the limits of ``skill_rule.limits``.


def json_pattern(pattern: re.Pattern[str]) -> str:
    """A Python ``\\A…\\Z`` pattern as a JSON Schema (ECMA-262) ``^…$`` pattern."""
    return "^" + pattern.pattern.removeprefix("\\A").removesuffix("\\Z") + "$"


def _documented(schema: dict[str, Any], **kwargs: Any) -> serializers.Field:
    """A field stated in the schema as ``schema`` (plus its ``help_text``, ``allow_null`` and
    ``default``); never used to read a request."""
    return extend_schema_field(schema)(type("ReportValueField", (serializers.JSONField,), {}))(**kwargs)


_ID = {"type": "string", "minLength": 1, "maxLength": REPORT_ID_MAX_CHARS, "pattern": json_pattern(REPORT_ID_PATTERN)}
_NAME = {
    "type": "string",
    "minLength": 1,
    "maxLength": REPORT_NAME_MAX_CHARS,
    "pattern": "^[^\\x00-\\x1f\\x7f-\\x9f]+$",
}
_CODE = {"type": "string", "maxLength": REPORT_CODE_MAX_CHARS, "pattern": json_pattern(REPORT_CODE_PATTERN)}
_SHA256 = {"type": "string", "minLength": 64, "maxLength": 64, "pattern": "^[0-9a-f]{64}$"}
_LABEL = {"type": "string", "maxLength": SKILL_CODE_MAX_LENGTH, "pattern": json_pattern(SKILL_CODE_PATTERN)}


def _integer(minimum: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": minimum, "maximum": REPORT_MAX_INT}


def _names(item: dict[str, Any], *, unique: bool) -> dict[str, Any]:
    return {
        "type": "array",
        "items": item,
        "maxItems": REPORT_MAX_LIST_ITEMS,
        **({"uniqueItems": True} if unique else {}),
    }


class _ReportCommon(serializers.Serializer):
    id = _documented(
        _ID,
        help_text="Made by the runtime, unique per record (a UUID): a batch sent again is stored once "
        "(one record per runtime key and id).",
    )
    at = _documented(
        {"type": "string", "format": "date-time", "maxLength": REPORT_TIME_MAX_CHARS},
        help_text="When it happened: ISO 8601 with an offset. At most "
        f"{REPORT_MAX_FUTURE_SECONDS} s after the console's clock, and not older than the retention period "
        "(`SKILL_CONSOLE_REPORTS_RETENTION_DAYS`, default 30 days).",
    )
    instance = _documented(_ID, help_text="The runtime instance (process) that reports, e.g. `host-3:worker-2`.")


def _release(*, optional: bool) -> serializers.Field:
    extra: dict[str, Any] = {"required": False, "default": None} if optional else {}
    return _documented(_integer(1), allow_null=True, help_text="The release number held; null = the draft.", **extra)


def _sha256(*, optional: bool) -> serializers.Field:
    extra: dict[str, Any] = {"required": False, "default": None} if optional else {}
    return _documented(
        _SHA256,
        allow_null=optional,
        help_text="The release's sha256: the catalog's ETag without quotes. A release number the console does "
        "not have with this sha256 is stored and marked `unknown_release`.",
        **extra,
    )


def _conversation() -> serializers.Field:
    return _documented(
        _ID, help_text="A pseudonymous conversation id made by the runtime (e.g. an HMAC); never user text."
    )


def _round() -> serializers.Field:
    return _documented(_integer(1), help_text="The round's position in the conversation: 1 = its first.")


@extend_schema_serializer(component_name="RoundReport")
class RoundReportSerializer(_ReportCommon):
    """One round: what the model was given (``POST runtime/rounds`` or ``RuntimeClient.round``)."""

    kind = serializers.ChoiceField(choices=["round"])
    release = _release(optional=False)
    sha256 = _sha256(optional=False)
    label = _documented(
        _LABEL, required=False, allow_null=True, default=None, help_text="The label the runtime pins; null = default."
    )
    conversation = _conversation()
    round = _round()
    loaded = _documented(_names(_NAME, unique=True), help_text="Skills loaded in this round.")
    masked = _documented(_names(_NAME, unique=True), help_text="Tools masked in this round.")
    withheld = _documented(
        _integer(0), required=False, default=0, help_text="MCP tools the access profile or stage left out."
    )
    tools_chars = _documented(
        _integer(0), required=False, allow_null=True, default=None, help_text="The size of the round's tools array."
    )
    warnings = _documented(
        _names(_CODE, unique=False), required=False, default=list, help_text="The round's warning codes."
    )


@extend_schema_serializer(component_name="CallReport")
class CallReportSerializer(_ReportCommon):
    """One guarded call: the guard's verdict (``POST runtime/check-call`` or ``RuntimeClient.check_call``)."""

    kind = serializers.ChoiceField(choices=["call"])
    release = _release(optional=False)
    sha256 = _sha256(optional=False)
    conversation = _conversation()
    round = _round()
    tool = _documented(
        _NAME, help_text="The tool the model called (any name: an unknown one is marked `unknown_tool`)."
    )
    verdict = serializers.ChoiceField(choices=["allowed", "refused", "confirm"])
    reason = _documented(
        _CODE,
        required=False,
        allow_null=True,
        default=None,
        help_text="Set exactly when `verdict` is `refused`: `masked`, `unknown_tool`, `not_permitted` …",
    )
    skill_code = _documented(
        _NAME,
        required=False,
        allow_null=True,
        default=None,
        help_text="The manual to load (`masked`), or the code a load_skill call asks for.",
    )


@extend_schema_serializer(component_name="HeartbeatReport")
class HeartbeatReportSerializer(_ReportCommon):
    """One heartbeat of a runtime instance: what it holds (the fleet)."""

    kind = serializers.ChoiceField(choices=["heartbeat"])
    client_version = _documented(
        {"type": "string", "maxLength": REPORT_VERSION_MAX_CHARS, "pattern": json_pattern(REPORT_VERSION_PATTERN)},
        help_text="E.g. `skill-console-client/0.1.0`.",
    )
    stale = serializers.BooleanField(help_text="The runtime answers from a copy it could not refresh.")
    release = _release(optional=True)
    sha256 = _sha256(optional=True)
    label = _documented(_LABEL, required=False, allow_null=True, default=None)
    refresh = _documented(
        {"type": "string", "enum": ["fetched", "not_modified", "stale"]},
        required=False,
        allow_null=True,
        default=None,
        help_text="The last refresh's outcome; null = never refreshed.",
    )
    dropped = _documented(
        _integer(0),
        required=False,
        default=0,
        help_text="Records the runtime dropped unsent (its queue full, a batch refused) since the last "
        "heartbeat it sent: summed over heartbeats, every record lost. Absent = 0.",
    )


@extend_schema_serializer(component_name="SampleReport")
class SampleReportSerializer(_ReportCommon):
    """A sampled round's retained messages, redacted by the runtime (docs/runtime-api.md, "Samples")."""

    kind = serializers.ChoiceField(choices=["sample"])
    release = _release(optional=False)
    sha256 = _sha256(optional=False)
    label = _documented(
        _LABEL, required=False, allow_null=True, default=None, help_text="The label the runtime pins; null = default."
    )
    conversation = _conversation()
    round = _round()
    redaction = _documented(
        {"type": "string", "enum": ["redacted", "arguments"]},
        help_text="`redacted`: text and tool results other than load_skill's replaced by their length, "
        "call arguments kept only for load_skill; `arguments`: the same with every call's arguments kept "
        "(the runtime opted in).",
    )
    messages = _documented(
        {"type": "array", "items": {"type": "object"}, "maxItems": REPORT_SAMPLE_MAX_MESSAGES},
        help_text="The round's retained messages as `skill_rule.redaction.redact_messages` gives them, at most "
        f"{REPORT_SAMPLE_MAX_BYTES} bytes of compact JSON (`REPORT_SAMPLE_MAX_BYTES`). Redacting them again "
        "must change nothing, else the batch is refused (400 naming `messages.<index>`).",
    )


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="Report",
        serializers={
            "round": RoundReportSerializer,
            "call": CallReportSerializer,
            "heartbeat": HeartbeatReportSerializer,
            "sample": SampleReportSerializer,
        },
        resource_type_field_name="kind",
    )
)
class ReportRecordField(serializers.JSONField):
    """One record of a batch (documentation only: ``skill_rule.reports`` reads it)."""


@extend_schema_serializer(component_name="MarkedReport")
class MarkedReportSerializer(serializers.Serializer):
    """A record of a batch naming something the console does not know (stored all the same)."""

    index = serializers.IntegerField(min_value=0, help_text="0-based position in `records`.")
    id = serializers.CharField()
    flags = serializers.ListField(
        child=serializers.ChoiceField(choices=list(FLAGS)),
        help_text="`unknown_release` (no release with this number and sha256), `unknown_skill`, `unknown_tool`.",
    )
