"""The runtime JSON API of docs/runtime-api.md: one ``APIView`` per operation, nested input and output
serializers, and nothing but the domain underneath (``compute_round``, ``check_call``,
``load_skill``) applied to the catalog ``runtime.runtime_served()`` picks (a release; the draft
only on request).

Authentication and permissions come from ``settings.REST_FRAMEWORK`` (token first, then session;
authenticated users only); every error is rendered by
``skills_app.runtime.exception_handlers.api_exception_handler``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from django.http import HttpResponse, HttpResponseNotModified
from django.utils import timezone
from django.utils.http import parse_etags
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import exceptions, serializers
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from skill_rule import check_call, compute_round, load_skill
from skill_rule.limits import CATALOG_PLACEMENTS, REPORT_MAX_BATCH_BYTES, REPORT_MAX_RECORDS, is_valid_skill_code
from skill_rule.payload import NAMES, TOOLS_FORMATS, catalog_text, payload_chars, tools_payload
from skill_rule.providers import payload_problems, targets_for_format
from skill_rule.reports import parse_reports
from skills_app.reports.services import reports_ingest, retention_days
from skills_app.runtime.auth import IsRuntimeKey, may_read_drafts, request_key
from skills_app.runtime.catalog_reads import (
    RELEASE_HEADER,
    STALE_HEADER,
    Served,
    content_sha256,
    runtime_served,
)
from skills_app.runtime.errors import InvalidSkillCodeError, SkillNotFoundError
from skills_app.runtime.parsers import ReportsParser, StrictJSONParser
from skills_app.runtime.renderers import RuntimeJSONRenderer
from skills_app.runtime.serializers import (
    SKILL_CODE_SCHEMA,
    BuiltinToolSerializer,
    CallInputSerializer,
    CallTargetSerializer,
    CatalogSkillSerializer,
    DraftField,
    ErrorSerializer,
    LabelField,
    MarkedReportSerializer,
    McpToolSerializer,
    MessagesField,
    PayloadProblemSerializer,
    ReleaseField,
    ReleaseQuerySerializer,
    ReportRecordField,
    RestrictionSerializer,
    RoundInputSerializer,
    SkillCodeField,
    SkillToolSerializer,
    StrictInputSerializer,
    ToolsPayloadField,
    WarningSerializer,
)

TAG = "runtime"
CACHE_CONTROL = "private, no-cache"

RELEASE_PARAMETERS = [
    OpenApiParameter(
        "release",
        OpenApiTypes.INT,
        OpenApiParameter.QUERY,
        required=False,
        description="Pin release N (404 `release_not_found` if unknown). Default: the release labelled "
        "`production`, else the latest; with no release at all 404 `no_release`. POST "
        "endpoints accept the same as a body field.",
    ),
    OpenApiParameter(
        "label",
        OpenApiTypes.STR,
        OpenApiParameter.QUERY,
        required=False,
        description="Pin the release a label points at (404 `label_not_found`). Body field on POST too.",
    ),
    OpenApiParameter(
        "draft",
        OpenApiTypes.BOOL,
        OpenApiParameter.QUERY,
        required=False,
        description="`1`/`true`: answer from the unpublished draft — only for a key created with `--drafts` "
        "or a publisher's console session (403 `drafts_not_allowed`). Body field on POST too.",
    ),
]
RELEASE_PARAMETER = RELEASE_PARAMETERS  # one name for the endpoints below


def _answer_headers(*statuses: int) -> list[OpenApiParameter]:
    """The response headers of an answer made from a release (docs/runtime-api.md, "When the
    database is down")."""
    return [
        OpenApiParameter(
            RELEASE_HEADER,
            OpenApiTypes.INT,
            OpenApiParameter.HEADER,
            required=False,
            response=list(statuses),
            description="The number of the release the answer was made from (absent for the draft).",
        ),
        OpenApiParameter(
            STALE_HEADER,
            OpenApiTypes.STR,
            OpenApiParameter.HEADER,
            required=False,
            response=list(statuses),
            enum=["1"],
            description="`1` when the database cannot be reached and the answer comes from the last release "
            "this server holds for the selector (memory, cache, or `var/runtime`); absent otherwise.",
        ),
    ]


POST_PARAMETERS = [*RELEASE_PARAMETERS, *_answer_headers(200)]


def _errors(*statuses: int) -> dict[int, OpenApiResponse]:
    text = {
        400: "Invalid input (`invalid`, `malformed_json`, `invalid_messages`, `unknown_restriction`, "
        "`invalid_skill_code`).",
        401: "No, unknown or revoked API key (`not_authenticated`, `authentication_failed`); send "
        "`Authorization: Bearer <key>`.",
        403: "`?draft=1` without a key allowed to read drafts (`drafts_not_allowed`), or a console session "
        "that is not staff (`permission_denied`).",
        404: "Nothing published yet (`no_release`), unknown release, label or skill (`release_not_found`, "
        "`label_not_found`, `skill_not_found`).",
        503: "The database cannot be reached and this server holds no release for the selector "
        "(`database_unavailable`, with `Retry-After`); with one held, the answer is that release, marked "
        "`X-Skill-Console-Stale: 1`.",
    }
    return {s: OpenApiResponse(ErrorSerializer, description=text[s]) for s in statuses}


def _if_none_match(header: str | None, etag: str) -> bool:
    """True when an ``If-None-Match`` header matches ``etag`` (RFC 9110 §13.1.2).

    ``*`` matches any current representation; otherwise the header is a comma-separated list of
    entity tags compared with the *weak* comparison function (``W/"x"`` matches ``"x"``).
    """
    if not header:
        return False
    tags = parse_etags(header)
    if tags == ["*"]:
        return True
    target = etag.removeprefix("W/")
    return any(tag.removeprefix("W/") == target for tag in tags)


def _given(value: Any) -> Any:
    """``None`` for an absent selector (missing, null, empty, ``false``), else the value."""
    return None if value in (None, "", False) else value


def _served(request: Request, body: dict[str, Any] | None = None) -> Served:
    """The catalog asked for by the query (``release``, ``label``, ``draft``) and/or the body
    fields of the same names (docs/releases.md). The same selector given differently in both is a
    400 ``invalid``; two different selectors a 400 ``conflicting_selectors``."""
    params: Mapping[str, Any] = {}
    if request.query_params:  # no query string (most runtime calls): nothing to validate
        query = ReleaseQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        params = query.validated_data
    body = body or {}
    chosen: dict[str, Any] = {}
    for name in ("release", "label", "draft"):
        from_query, from_body = _given(params.get(name)), _given(body.get(name))
        if from_query is not None and from_body is not None and from_query != from_body:
            raise exceptions.ValidationError(
                {name: [f"{name} {from_body} in the body and {from_query} in the query differ."]}
            )
        value = from_body if from_body is not None else from_query
        if value is not None:
            chosen[name] = value
    return runtime_served(
        release=chosen.get("release"),
        label=chosen.get("label"),
        draft=bool(chosen.get("draft")),
        drafts_allowed=may_read_drafts(request) if chosen.get("draft") else False,
    )


class RuntimeNegotiation(DefaultContentNegotiation):
    """DRF's content negotiation without its ``?format=`` switch: the runtime answers JSON only, so
    ``?format=api`` is an unknown query parameter, refused with a 400 naming it like any other
    (``ReleaseQuerySerializer``), not a 404 for a renderer the API does not have."""

    settings = SimpleNamespace(URL_FORMAT_OVERRIDE=None)


class RuntimeApi(APIView):
    """Base of the runtime endpoints: JSON in, JSON out (no browsable API, no form posts). In
    English whatever ``Accept-Language`` says: ``core.faults.ApiInEnglishMiddleware``."""

    parser_classes = [StrictJSONParser]
    renderer_classes = [RuntimeJSONRenderer]
    content_negotiation_class = RuntimeNegotiation


class CatalogApi(RuntimeApi):
    """``GET runtime/catalog`` — the catalog the agent is served (docs/runtime-api.md)."""

    @extend_schema_serializer(component_name="RuntimeCatalog")
    class OutputSerializer(serializers.Serializer):
        release = serializers.IntegerField(allow_null=True, help_text="Release number; null = the draft (`?draft=1`).")
        sha256 = serializers.CharField(
            help_text="Hex SHA-256 of the canonical JSON of this body without `sha256` (sorted keys, "
            "separators `,` `:`, UTF-8 unescaped). Also the strong ETag."
        )
        marker_key = serializers.CharField()
        eviction_prefix = serializers.CharField()
        load_skill_header = serializers.CharField(
            help_text="Opens the generated load_skill description; one line `- code（name）：description` "
            "per enabled skill follows it (see `tools_format` of runtime/rounds)."
        )
        catalog_placement = serializers.ChoiceField(
            choices=list(CATALOG_PLACEMENTS),
            required=False,
            help_text="Only when `system_prompt`: the catalog lines go to the system prompt (`catalog_text` of "
            "runtime/rounds) and load_skill's description is the header alone. Absent: `tool_description`.",
        )
        builtins = BuiltinToolSerializer(many=True)
        mcp_tools = McpToolSerializer(many=True, help_text="Registration (intent-tree) order.")
        skills = CatalogSkillSerializer(many=True, help_text="Enabled skills by sort_order, then code.")
        gated_tool_ids = serializers.ListField(child=serializers.CharField())
        access_profiles = RestrictionSerializer(many=True)
        stages = RestrictionSerializer(many=True)

    @extend_schema(
        tags=[TAG],
        operation_id="runtime_catalog",
        parameters=[*RELEASE_PARAMETERS, *_answer_headers(200, 304)],
        responses={
            200: OutputSerializer,
            304: OpenApiResponse(description="`If-None-Match` matched the ETag."),
            **_errors(400, 401, 403, 404, 503),
        },
    )
    def get(self, request: Request) -> HttpResponse:
        served = _served(request)
        etag = f'"{served.sha256}"'
        if _if_none_match(request.headers.get("If-None-Match"), etag):
            return HttpResponseNotModified(headers={"ETag": etag, "Cache-Control": CACHE_CONTROL, **served.headers()})
        body = served.body_bytes  # the stored bytes (Release.catalog_json); a stale answer may change the ETag
        headers = {"ETag": f'"{served.sha256}"', "Cache-Control": CACHE_CONTROL, **served.headers()}
        return HttpResponse(body, content_type="application/json", headers=headers)


class SkillDetailApi(RuntimeApi):
    """``GET runtime/skills/{code}`` — one enabled skill's manual (docs/runtime-api.md)."""

    @extend_schema_serializer(component_name="RuntimeSkill")
    class OutputSerializer(serializers.Serializer):
        release = serializers.IntegerField(allow_null=True)
        code = serializers.CharField()
        name = serializers.CharField()
        version = serializers.IntegerField()
        content = serializers.CharField(help_text="The manual (markdown).")
        content_sha256 = serializers.CharField()
        tool_ids = serializers.ListField(child=serializers.CharField())
        tools = SkillToolSerializer(
            many=True,
            help_text="`tool_ids` in order with each tool's call target (docs/mcp.md, \"How a runtime maps "
            'calls back").',
        )

    @extend_schema(
        tags=[TAG],
        operation_id="runtime_skill",
        parameters=[
            OpenApiParameter(
                "code",
                SKILL_CODE_SCHEMA,
                OpenApiParameter.PATH,
                description="Skill code (400 `invalid_skill_code` when it breaks the rule).",
            ),
            *RELEASE_PARAMETERS,
            *_answer_headers(200),
        ],
        responses={200: OutputSerializer, **_errors(400, 401, 403, 404, 503)},
    )
    def get(self, request: Request, code: str) -> Response:
        if not is_valid_skill_code(code):
            raise InvalidSkillCodeError(code)
        served = _served(request)
        catalog = served.catalog
        skill = catalog.skill(code)
        if skill is None:
            raise SkillNotFoundError(code, known=[s.code for s in catalog.enabled_skills])
        data = self.OutputSerializer(
            {
                "release": catalog.release,
                "code": skill.code,
                "name": skill.name,
                "version": skill.version,
                "content": skill.content,
                "content_sha256": content_sha256(skill.content),
                "tool_ids": list(skill.tool_ids),
                "tools": [_skill_tool(catalog, name) for name in skill.tool_ids],
            }
        ).data
        return Response(data, headers={"Cache-Control": CACHE_CONTROL, **served.headers()})


def _skill_tool(catalog: Any, name: str) -> dict[str, Any]:
    """``{"name", "server", "mcp_name"}`` of a gated tool (both ``None`` without a call target)."""
    target = (tool.call_target if (tool := catalog.tool(name)) is not None else None) or {}
    return {"name": name, "server": target.get("server"), "mcp_name": target.get("tool")}


class RoundsApi(RuntimeApi):
    """``POST runtime/rounds`` — what the model is given this round (docs/rule.md, docs/runtime-api.md).

    ``tools_format`` (body) chooses the answer's shape: ``names`` (default) gives the tool names
    only; ``openai`` / ``anthropic`` add ``tools``, the exact array a chat API receives this round
    (``skill_rule.payload.tools_payload``), ``tools_chars``, its size in characters
    (``payload_chars``: code points of the compact JSON text), and ``payload_problems``
    (``skill_rule.providers.payload_problems``, docs/providers.md). Under the release's
    ``system_prompt`` catalog placement every answer also carries ``catalog_text``, the block for
    the system prompt (``skill_rule.payload.catalog_text``; docs/runtime-api.md, "Where the
    catalog goes"). docs/runtime-api.md.
    """

    @extend_schema_serializer(component_name="RoundsInput")
    class InputSerializer(RoundInputSerializer):
        tools_format = serializers.ChoiceField(
            choices=list(TOOLS_FORMATS),
            required=False,
            default=NAMES,
            error_messages={
                "invalid_choice": "unknown tools_format '{input}'; choose one of: " + ", ".join(TOOLS_FORMATS) + "."
            },
            help_text="`names` (default): tool names only. `openai` / `anthropic`: also `tools`, the "
            "exact array a chat API receives this round, and `tools_chars`, its size in characters.",
        )

    @extend_schema_serializer(component_name="Round")
    class OutputSerializer(serializers.Serializer):
        release = serializers.IntegerField(allow_null=True)
        loaded = serializers.ListField(child=serializers.CharField(), help_text="Loaded skill codes.")
        masked = serializers.DictField(child=serializers.CharField(), help_text="Masked tool → skill to load.")
        visible = serializers.ListField(child=serializers.CharField(), help_text="Tools given, registration order.")
        count = serializers.IntegerField()
        builtins = serializers.ListField(child=serializers.CharField())
        mcp_visible = serializers.ListField(child=serializers.CharField())
        withheld = serializers.DictField(
            child=serializers.CharField(), help_text="Unmasked MCP tool → `not_permitted` or `stage`."
        )
        warnings = serializers.ListField(child=serializers.CharField())
        warning_details = WarningSerializer(
            many=True, help_text="The same warnings with their code and the 0-based message index they name."
        )
        tools = ToolsPayloadField(
            required=False,
            help_text="Only with `tools_format` `openai` or `anthropic`: the tools array of this round, in "
            "`visible` order; load_skill's description and `skill_code` enum are generated from "
            "the enabled skills.",
        )
        tools_chars = serializers.IntegerField(
            required=False,
            min_value=0,
            help_text="Only with `tools`: its size in characters (Unicode code points) of "
            "`json.dumps(tools, ensure_ascii=False, separators=(',', ':'))`. Never tokens.",
        )
        payload_problems = PayloadProblemSerializer(
            many=True,
            required=False,
            help_text="Only with `tools`: what each configured provider target (and the target whose shape "
            "`tools` has) refuses (`refused`), finds over its budget (`over_budget`) or rewrote in its own "
            "payload (`rewritten`) in this round, target by target (docs/providers.md). Empty: every target "
            "accepts the round.",
        )
        catalog_text = serializers.CharField(
            required=False,
            allow_blank=True,
            help_text="Only under the release's `system_prompt` catalog placement: the skill catalog to put "
            "in the system prompt, one line `- code（name）：description` per enabled skill (empty when none); "
            "load_skill's description is then the header alone and its `skill_code` enum lists every code.",
        )

    @extend_schema(
        tags=[TAG],
        operation_id="runtime_rounds",
        parameters=POST_PARAMETERS,
        request=InputSerializer,
        responses={200: OutputSerializer, **_errors(400, 401, 403, 404, 503)},
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        served = _served(request, serializer.validated_data)
        catalog = served.catalog
        view = compute_round(catalog, serializer.validated_data["messages"], **serializer.restrictions())
        fields = self.OutputSerializer._declared_fields
        data: dict[str, Any] = {"release": catalog.release, **view.as_dict(only=fields, copies=False)}
        fmt = serializer.validated_data.get("tools_format") or NAMES
        if fmt != NAMES:
            tools = tools_payload(catalog, view.visible, fmt)
            problems = payload_problems(catalog, view.visible, targets_for_format(catalog, fmt))
            data.update(tools=tools, tools_chars=payload_chars(tools), payload_problems=[p.as_dict() for p in problems])
        block = catalog_text(catalog)
        if block is not None:
            data["catalog_text"] = block
        # ``RoundView.as_dict`` holds JSON types only (tuples render as arrays): the documented fields
        # are picked in the OutputSerializer's order rather than copied item by item through it
        # (2,000 tool names on a large catalog); tests/api/test_rounds.py checks the two give the same JSON
        return Response({k: data[k] for k in fields if k in data}, headers=served.headers())


class LoadSkillApi(RuntimeApi):
    """``POST runtime/load-skill`` — the ``load_skill`` tool result under the repeat-load rule.

    A malformed code answers 400 ``invalid_skill_code`` and an unknown or disabled one 404
    ``skill_not_found`` naming the skills on offer — both before any manual is read (docs/rule.md).
    """

    @extend_schema_serializer(component_name="LoadSkillInput")
    class InputSerializer(StrictInputSerializer):
        messages = MessagesField()
        skill_code = SkillCodeField(
            help_text="The code the model passed to load_skill, exactly (a padded code is malformed)."
        )
        release = ReleaseField()
        label = LabelField()
        draft = DraftField()

    @extend_schema_serializer(component_name="LoadSkillResult")
    class OutputSerializer(serializers.Serializer):
        release = serializers.IntegerField(allow_null=True)
        state = serializers.ChoiceField(choices=["success", "error"])
        content = serializers.CharField(help_text="The full manual, or the short already-loaded stub.")
        metadata = serializers.DictField(
            help_text='Full body: `{marker_key: code, "skill_version": v}`; stub: no marker key.'
        )
        already_loaded = serializers.BooleanField()
        version = serializers.IntegerField(allow_null=True)

    @extend_schema(
        tags=[TAG],
        operation_id="runtime_load_skill",
        parameters=POST_PARAMETERS,
        request=InputSerializer,
        responses={200: OutputSerializer, **_errors(400, 401, 403, 404, 503)},
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        code = serializer.validated_data["skill_code"]
        if not is_valid_skill_code(code):
            raise InvalidSkillCodeError(code)
        served = _served(request, serializer.validated_data)
        catalog = served.catalog
        result = load_skill(catalog, serializer.validated_data["messages"], code)
        if result.state != "success":
            raise SkillNotFoundError(code, known=[s.code for s in catalog.enabled_skills], message=result.content)
        return Response(
            self.OutputSerializer({"release": catalog.release, **result.as_dict()}).data, headers=served.headers()
        )


class CheckCallApi(RuntimeApi):
    """``POST runtime/check-call`` — the execution guard (docs/rule.md): allowed, refused or confirm."""

    @extend_schema_serializer(component_name="CheckCallInput")
    class InputSerializer(RoundInputSerializer):
        call = CallInputSerializer()

    @extend_schema_serializer(component_name="CheckCallVerdict")
    class OutputSerializer(serializers.Serializer):
        release = serializers.IntegerField(allow_null=True)
        verdict = serializers.ChoiceField(choices=["allowed", "refused", "confirm"])
        reason = serializers.ChoiceField(
            choices=[
                "masked",
                "unknown_tool",
                "unknown_skill",
                "not_permitted",
                "stage",
                "invalid_arguments",
                "invalid_tool_definition",
            ],
            allow_null=True,
        )
        skill_code = serializers.CharField(
            allow_null=True, help_text="The manual to load (masked) or the code a load_skill call asks for."
        )
        message = serializers.CharField()
        target = CallTargetSerializer(
            allow_null=True,
            help_text="`allowed` or `confirm` call to a synced MCP tool: the server and the real tool name to send "
            "`tools/call` to (the call's `name` is the model-facing name). Null when refused, for "
            'builtins, and for tools with no server. docs/mcp.md, "How a runtime maps calls back".',
        )

    @extend_schema(
        tags=[TAG],
        operation_id="runtime_check_call",
        parameters=POST_PARAMETERS,
        request=InputSerializer,
        responses={200: OutputSerializer, **_errors(400, 401, 403, 404, 503)},
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        served = _served(request, serializer.validated_data)
        catalog = served.catalog
        verdict = check_call(
            catalog,
            serializer.validated_data["messages"],
            serializer.validated_data["call"],
            **serializer.restrictions(),
        )
        return Response(
            self.OutputSerializer({"release": catalog.release, **verdict.as_dict(), "target": verdict.target}).data,
            headers=served.headers(),
        )


class ReportsApi(RuntimeApi):
    """``POST runtime/reports`` — a batch of records from a runtime: rounds, guarded calls and
    heartbeats (docs/runtime-api.md, "Reports"). Runtime keys only (``IsRuntimeKey``); a key
    writes reports and no endpoint reads them back.

    The body is read by ``skill_rule.reports.parse_reports`` — a bad record refuses the whole
    batch, 400 ``invalid_report`` naming its index and field — and stored by
    ``skills_app.reports.services.reports_ingest`` in one transaction, once per key and record id.
    """

    parser_classes = [ReportsParser]
    permission_classes = [IsRuntimeKey]

    @extend_schema_serializer(component_name="ReportBatch")
    class InputSerializer(serializers.Serializer):
        records = serializers.ListField(
            child=ReportRecordField(),
            min_length=1,
            max_length=REPORT_MAX_RECORDS,
            help_text=f"1 to {REPORT_MAX_RECORDS} records (`REPORT_MAX_RECORDS`), at most "
            f"{REPORT_MAX_BATCH_BYTES} bytes of JSON in all (`REPORT_MAX_BATCH_BYTES`, else 413 "
            "`report_too_large`). One bad record refuses the batch: nothing of it is stored.",
        )

    @extend_schema_serializer(component_name="ReportsStored")
    class OutputSerializer(serializers.Serializer):
        received = serializers.IntegerField(min_value=0, help_text="Records in the batch.")
        stored = serializers.IntegerField(min_value=0, help_text="Records stored now.")
        duplicates = serializers.IntegerField(
            min_value=0, help_text="Records stored before under the same key and id (a batch sent again): skipped."
        )
        marked = MarkedReportSerializer(
            many=True,
            help_text="The records of this batch (stored now or before) naming a release, skill or tool the "
            "console does not know.",
        )

    @extend_schema(
        tags=[TAG],
        operation_id="runtime_reports",
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            400: OpenApiResponse(
                ErrorSerializer,
                description="`invalid_report`: `details` = `{index, field, cause}` (+ `limit`, `max` past a "
                "named limit); `malformed_json`.",
            ),
            401: _errors(401)[401],
            403: OpenApiResponse(
                ErrorSerializer,
                description="A console session is authenticated but refused: reports take a runtime key "
                "(`runtime_key_required`).",
            ),
            413: OpenApiResponse(
                ErrorSerializer, description="Over `REPORT_MAX_BATCH_BYTES` (`report_too_large`) or Django's limit."
            ),
            503: OpenApiResponse(
                ErrorSerializer,
                description="The database cannot be reached (`database_unavailable`, with `Retry-After`): "
                "nothing was stored; send the batch again.",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        now = timezone.now()
        reports = parse_reports(request.data, now=now, retention_days=retention_days())
        key = request_key(request)  # never None here: IsRuntimeKey let the request in
        ingested = reports_ingest(key_prefix=key.prefix, reports=reports, received_at=now)
        return Response(ingested.as_dict())


@extend_schema(exclude=True)
class NotFoundApi(RuntimeApi):
    """Any other path under ``/api/v1/``: a JSON 404 instead of Django's HTML page."""

    permission_classes = [AllowAny]

    def _not_found(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        raise exceptions.NotFound(f"no API endpoint at '{request.path}'.")

    get = post = put = patch = delete = options = _not_found
