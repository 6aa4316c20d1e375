"""Limits and patterns named once (docs/design.md), reused by models, forms, serializers and loaders."""

from __future__ import annotations

import re

SKILL_CODE_MIN_LENGTH = 2
SKILL_CODE_MAX_LENGTH = 64
#: lowercase letter first, then lowercase letters/digits with single ``_`` or ``-`` separators.
SKILL_CODE_PATTERN = re.compile(r"\A[a-z](?:[a-z0-9]|[_-](?=[a-z0-9]))*\Z")
NAME_MAX_LENGTH = 64
DESCRIPTION_MAX_LENGTH = 512
INTENT_DESCRIPTION_MAX_LENGTH = 512
INTENT_CODE_MAX_LENGTH = 64
TOOL_NAME_MAX_LENGTH = 128
#: Characters of a tool's stored title (a server's longer title is cut to it when listed: mcp_sync._listed).
TOOL_TITLE_MAX_LENGTH = 200
#: Bounds of a synced MCP tool's definition (docs/mcp.md, "Bounded definitions"): a ``tools/list``
#: entry past one is refused at sync with its cause and the server's other tools still arrive. They
#: are no provider's limit (those differ per target and are checked where a payload is made): they
#: bound what one careless or hostile server can make the console store, hash into every release
#: and send in every ``rounds`` answer with ``tools_format`` — unbounded, a 1 MB description and a
#: 4 MB schema made each OpenAI-format answer 5.4 MB. Generous on purpose, so no real tool is
#: refused: the description is what the model reads about one tool, and 8,192 characters is 16
#: skill descriptions (``DESCRIPTION_MAX_LENGTH``) or about four pages of prose; the title is a
#: display label (stored cut to ``TOOL_TITLE_MAX_LENGTH``) and 1,024 characters of it can only be
#: a mistake; 64 KiB of canonical JSON (``snapshot.canonical_json``: sorted keys, no whitespace,
#: UTF-8) holds a schema of several hundred documented properties or an enum of thousands of
#: values, while keeping one tool below a tenth of a megabyte in every answer that carries it.
#: The schema bound applies to ``inputSchema`` and ``outputSchema`` alike (both are stored).
SYNCED_TOOL_DESCRIPTION_MAX_LENGTH = 8_192
SYNCED_TOOL_TITLE_MAX_LENGTH = 1_024
SYNCED_TOOL_SCHEMA_MAX_BYTES = 65_536
#: What OpenAI and Anthropic accept as a tool name: ASCII letters, digits, ``_`` and ``-``, 1–64
#: characters (a lookalike such as a Cyrillic ``о`` is refused). ``\Z``, not ``$``: no trailing newline.
TOOL_NAME_PATTERN = re.compile(r"\A[a-zA-Z0-9_-]{1,64}\Z")
#: Every character ``str.splitlines`` breaks on: a one-line text (a skill description) holds none.
LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")

#: docs/design.md settings carried in every release.
DEFAULT_MARKER_KEY = "ragent_loaded_skill"
DEFAULT_EVICTION_PREFIX = "[历史工具结果已省略，原长 "
#: The header of the generated ``load_skill`` description (docs/runtime-api.md, "What the model
#: sees"): one setting carried with the catalog; the catalog lines of the enabled skills follow it.
DEFAULT_LOAD_SKILL_HEADER = "\n".join(
    (
        "加载一份业务手册（技能）：手册写明处理某类业务的步骤、规则和注意事项。",
        "当用户的请求属于下列某一业务时，先用对应的 skill_code 调用 load_skill，读完手册再按手册操作。",
        "部分业务工具在关联手册加载后才会出现在可用工具中，不要仅凭当前工具清单判断是否支持该任务",
    )
)
LOAD_SKILL_HEADER_MAX_LENGTH = 2000
#: The provider targets whose limits every round's tools payload is checked against
#: (``skill_rule.providers``, docs/providers.md): a setting carried in every release.
DEFAULT_PAYLOAD_TARGETS = ("openai_chat", "anthropic_messages")
#: Where the model reads the skill catalog (docs/runtime-api.md, "Where the catalog goes"), a
#: setting carried in every release: ``tool_description`` (the default, seed 000's) puts one line per
#: enabled skill in ``load_skill``'s description; ``system_prompt`` leaves that description the
#: header alone and gives the lines as ``catalog_text``, a block for the runtime to put in the
#: system prompt — for a catalog too long for one tool description of a provider.
CATALOG_IN_TOOL_DESCRIPTION = "tool_description"
CATALOG_IN_SYSTEM_PROMPT = "system_prompt"
CATALOG_PLACEMENTS = (CATALOG_IN_TOOL_DESCRIPTION, CATALOG_IN_SYSTEM_PROMPT)
DEFAULT_CATALOG_PLACEMENT = CATALOG_IN_TOOL_DESCRIPTION

#: Simulation limits: a script or transcript past these is refused before anything runs. A run
#: costs O(messages + calls) plus O(tools) per round (docs/simulator.md, "Cost"); these bound it.
MAX_SCRIPT_CHARS = 200_000
MAX_ROUNDS = 200
MAX_MESSAGES = 2_000
#: Calls in one assistant step of a script or one assistant message of a transcript (a round).
MAX_CALLS_PER_ROUND = 40
#: Calls in a whole script or transcript (MAX_ROUNDS × MAX_CALLS_PER_ROUND).
MAX_CALLS_PER_SCRIPT = 8_000
#: Seconds a simulation or replay may run: past it the run stops and returns the rounds computed
#: so far with a "stopped after N of M rounds" problem (``Simulation.stopped``), never an error.
SIMULATION_TIME_BUDGET = 10.0
#: Characters of the JSON-Schema detail in an ``invalid_arguments`` refusal (the tool result the
#: model receives): jsonschema quotes the offending value, which may be megabytes; the rest is cut
#: and counted ("… (N more characters)").
ARGUMENT_ERROR_MAX_CHARS = 300

#: Tool pickers (skill and restriction editors): past this many registered MCP tools a picker lists
#: only the ticked tools and a search box that fetches the others, ``PICKER_SEARCH_MAX`` a query
#: (a catalog of 2,000 tools is no list of checkboxes to scroll; docs/benchmarks.md, issue 10).
PICKER_FULL_LIST_MAX = 200
PICKER_SEARCH_MAX = 30

LOAD_SKILL = "load_skill"
SEARCH_KNOWLEDGE = "search_knowledge"
FLUSH_MEMORY = "flush_memory"
#: Reserved builtin tool names, in registration order; never a skill's tool_id.
BUILTIN_TOOL_NAMES = (SEARCH_KNOWLEDGE, LOAD_SKILL, FLUSH_MEMORY)


def is_valid_skill_code(code: str) -> bool:
    """True when ``code`` matches the skill-code pattern and is 2–64 characters long."""
    return (
        isinstance(code, str)
        and SKILL_CODE_MIN_LENGTH <= len(code) <= SKILL_CODE_MAX_LENGTH
        and SKILL_CODE_PATTERN.fullmatch(code) is not None  # not match(): `$` would let "ab\n" through
    )


#: Lint thresholds (docs/lints.md): past these a skill gets a warning, never a refusal.
DESCRIPTION_LINT_LENGTH = 250
MANUAL_LINT_LENGTH = 20_000

#: Import of skill files (docs/import-export.md): a folder, a zip or single files past these is
#: refused before anything is parsed. A zip's entries are counted and measured as they are read
#: (a header that lies about its size is caught too).
IMPORT_MAX_FILES = 500
IMPORT_MAX_FILE_BYTES = 1_000_000
IMPORT_MAX_TOTAL_BYTES = 20_000_000
IMPORT_MAX_UPLOAD_BYTES = 10_000_000

#: Runtime reports (``POST runtime/reports``, docs/runtime-api.md "Reports"; ``skill_rule.reports``):
#: a batch past any of these is refused whole — 400 ``invalid_report`` naming the record and the
#: field, or 413 ``report_too_large`` for the bytes — and nothing of it is stored.
#: Records in one batch.
REPORT_MAX_RECORDS = 500
#: Bytes of one batch's JSON body (under Django's 2,621,440-byte request limit, so this one answers).
REPORT_MAX_BATCH_BYTES = 2_000_000
#: A record id, an instance id and a conversation id: 1–64 ASCII letters, digits, ``.``, ``_``,
#: ``:`` or ``-`` (a UUID, a hex digest, ``host-3:worker-2``) — never free text.
REPORT_ID_MAX_CHARS = 64
REPORT_ID_PATTERN = re.compile(r"\A[A-Za-z0-9._:-]{1,64}\Z")
#: A tool name or skill code a report names: whatever the model called or asked for (it may be a
#: name the console does not know, which is kept and marked), at most this long, no control character.
REPORT_NAME_MAX_CHARS = TOOL_NAME_MAX_LENGTH
#: A warning code or a refusal reason: a lowercase letter, then lowercase letters, digits and ``_``.
REPORT_CODE_MAX_CHARS = 64
REPORT_CODE_PATTERN = re.compile(r"\A[a-z][a-z0-9_]{0,63}\Z")
#: A client version (``skill-console-client/0.1.0``): 1–64 printable ASCII characters, no space.
REPORT_VERSION_MAX_CHARS = 64
REPORT_VERSION_PATTERN = re.compile(r"\A[!-~]{1,64}\Z")
#: Items of one list in a record (``loaded``, ``masked``, ``warnings``): a round of a 2,000-tool
#: catalog may mask nearly all of them.
REPORT_MAX_LIST_ITEMS = 2_000
#: Every integer of a record (release, round, withheld, tools_chars, dropped) is 0 or 1 up to this: what an
#: integer column holds on SQLite and PostgreSQL alike.
REPORT_MAX_INT = 2_147_483_647
#: Seconds a record's ``at`` may lie after the console's clock (clock skew); later is refused.
REPORT_MAX_FUTURE_SECONDS = 300
#: Characters of a record's ``at`` text (``2026-12-01T10:00:00.123456+08:00`` is 32).
REPORT_TIME_MAX_CHARS = 40
#: A ``sample`` record (docs/runtime-api.md "Samples"): at most this many retained messages, and
#: at most this many bytes of them as compact UTF-8 JSON — half a batch, so a batch of one sample
#: and other records still fits. A runtime whose sampled round is larger sends no sample of it.
REPORT_SAMPLE_MAX_MESSAGES = MAX_MESSAGES
REPORT_SAMPLE_MAX_BYTES = 1_000_000
#: Days raw report rows are kept (``SKILL_CONSOLE_REPORTS_RETENTION_DAYS``, ``manage.py
#: purge_reports``); a record older than the retention period is refused on ingest.
REPORTS_RETENTION_DAYS_DEFAULT = 30
