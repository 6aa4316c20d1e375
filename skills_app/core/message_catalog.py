"""The message catalog: every code → translated sentence of the console, in one place.

Services, the domain and the runtime refuse or warn with a stable ``code`` and ``params`` (their
English sentence names the value); pages, the admin and the commands show the sentence for that
code in the user's language. Look a code up here — never build its sentence elsewhere:

- ``MESSAGES_BY_CODE``: refusals of services and the domain (``ValidationError`` / ``Problem``
  codes), round warnings, skill-file causes (``SKILL_FILE_MESSAGES``), lints, release-gate
  reasons, simulation events, simulation warnings and unmet expectations. A few entries are one
  code's variants, named ``<code>_<variant>`` (e.g. ``expect_list_loaded``).
- ``VERDICT_MESSAGES``: the guard's verdicts, by verdict reason (``domain.rules``).
- ``EXPECTATION_LABELS``: the names of the lists an expectation compares.
- ``VERDICT_LABELS``, ``REASON_LABELS``, ``STATE_LABELS``: short labels of verdicts, refusal
  reasons and matrix states (the template filters of ``templatetags/console.py``).
- ``AUTO_RELEASE_NOTES``: the notes the console writes on a release itself (stored in English);
  ``release_note_text`` shows one in the page's language.
- ``SYNC_MESSAGES``: the sentences an MCP sync records (its warnings, the cause of a failure, a
  tool's naming warning), English templates by code. A sync stores each warning as a
  ``sync_entry`` (code, params, English text: what the command line prints); pages show it in
  their language (``web.presenters.sync_message_html``), the server's own words in it kept as the
  server wrote them.

``translate_error`` and ``problem_text`` fill a sentence with an error's params. A code not listed
shows the English sentence, which still names the value. The msgids are those of
``locale/zh_Hans/LC_MESSAGES/django.po``: change a sentence there and here together.

Layering: this module imports only the domain's ``Problem`` type and Django's translation and
``ValidationError``; models, selectors, services, forms, views, the API and the commands import it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext, gettext_noop, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from skill_rule.errors import Problem

#: Refusals of services and the domain, by ``code`` (``ValidationError`` / ``Problem``).
MESSAGES_BY_CODE: dict[str, Any] = {
    "tool_id_builtin": _("'%(tool_id)s' is a builtin tool and can never be gated by a skill."),
    "tool_id_disabled": _("'%(tool_id)s' belongs only to a disabled or deleted MCP node."),
    "tool_id_unknown": _("'%(tool_id)s' is not the tool of any MCP node."),
    "node_gated": _(
        "intent node '%(code)s' registers tool '%(tool)s', which skills %(skills)s gate; disabling or "
        "deleting it would break them (force it to flag them broken)"
    ),
    "node_has_children": _("intent node '%(code)s' has child nodes; delete them first"),
    "server_name_immutable": _("server name '%(name)s' cannot be changed."),
    "tool_not_registered": _("'%(tool_id)s' is not a registered MCP tool."),
    "skill_code_taken": _("a live skill with code '%(code)s' already exists."),
    "scenario_name_taken": _("A scenario named '%(name)s' already exists."),
    "scenario_unknown_access_profile": _(
        "the script names access profile '%(name)s', which does not exist; defined: %(known)s."
    ),
    "scenario_unknown_stage": _("the script names stage '%(name)s', which does not exist; defined: %(known)s."),
    "restriction_name_taken": _("'%(name)s' already exists."),
    "skill_code_immutable": _("skill code '%(code)s' cannot be changed after creation."),
    "skill_code_pattern": _(
        "skill code '%(code)s' must start with a lowercase letter and use only lowercase "
        "letters, digits and single '_' or '-' separators."
    ),
    "label_name_pattern": _(
        "label '%(value)s' must start with a lowercase letter and use only lowercase letters, "
        "digits and single '_' or '-' separators (like a skill code)."
    ),
    "skill_code_length": _("skill code '%(code)s' must be %(min)s–%(max)s characters long."),
    "skill_code_required": _("skill code is required."),
    "skill_code_builtin": _("skill code '%(code)s' is the name of a builtin tool; choose another code."),
    "skill_code_tool": _(
        "skill code '%(code)s' is the name of the MCP tool '%(tool)s'; the model would see a skill "
        "and a tool of one name. Choose another code."
    ),
    "skill_deleted": _("skill '%(code)s' is deleted; restore it before editing."),
    "skill_stale": _(
        "This skill was saved as version %(current)s while you were editing version %(base)s. "
        "Your text is kept below: save again to overwrite version %(current)s, or open version "
        "%(current)s in a new tab to compare."
    ),
    "name_required": _("name is required."),
    "name_too_long": _("name has %(length)s characters; at most %(max)s allowed."),
    "description_required": _("description is required (1–%(max)s characters, one line)."),
    "description_too_long": _("description has %(length)s characters; at most %(max)s allowed."),
    "description_multiline": _("description must be a single line (the model sees it in a catalog)."),
    "content_blank": _("the manual (content) must not be blank."),
    "secret_mask_unknown": _(
        "%(name)s: %(mask)s stands for a stored value, but none is stored under this name; type the value."
    ),
    # runtime API keys (releases.api_key_create / api_key_revoke)
    "key_name_required": _("a key needs a name."),
    "key_name_control": _("a key name cannot contain a control character (%(char)s)."),
    "key_name_taken": _("a key named '%(name)s' already exists; revoke it first or pick another name."),
    "key_not_found": _("no usable key named '%(name)s'."),
    "base_version_required": _(
        "the form did not say which version you edited, so nothing was saved; reload the page and edit again."
    ),
    # tool definitions (domain.tooldefs), refused where they enter
    "tool_name_invalid": _(
        "tool name %(name)s must be 1–64 ASCII letters, digits, '_' or '-' (what OpenAI and Anthropic accept)."
    ),
    "input_schema_not_object": _("inputSchema must be a JSON object, got %(kind)s."),
    "input_schema_type": _('inputSchema must have "type": "object", got %(value)s.'),
    "input_schema_invalid": _("inputSchema is not a valid JSON Schema at %(where)s: %(cause)s"),
    "input_schema_ref": _("inputSchema $ref %(ref)s does not resolve."),
    "annotations_not_object": _("annotations must be a JSON object."),
    "input_schema_dialect": _(
        "inputSchema $schema %(dialect)s names a JSON Schema dialect the console does not "
        "know (it knows drafts 3, 4, 6, 7, 2019-09 and 2020-12); the schema is not validated "
        "as another one."
    ),
    # tool annotations read fail-closed (domain.tooldefs.read_annotations, docs/mcp.md "Confirmation")
    "annotations_invalid": _(
        "tool %(tool)s: %(where)s is %(value)s, which MCP does not allow there (a hint is "
        "true or false, the annotations an object); its calls need confirmation."
    ),
    "annotations_contradictory": _(
        "tool %(tool)s: annotations say readOnlyHint true and destructiveHint true, "
        "which contradict each other; its calls need confirmation."
    ),
    # round warnings (domain.transcript, docs/transcripts.md); %(number)s is the 1-based message
    "arguments_unparseable": _(
        "Message %(number)s: the arguments of %(tool)s are not valid JSON (%(cause)s); read as no arguments."
    ),
    "arguments_not_object": _(
        "Message %(number)s: the arguments of %(tool)s are %(kind)s, not a JSON object; read as no arguments."
    ),
    "arguments_double_encoded": _(
        "Message %(number)s: the arguments of %(tool)s are JSON text inside a JSON string; decoded once more."
    ),
    "arguments_free_text": _(
        "Message %(number)s: the custom tool call %(tool)s has free-text input, not JSON "
        "arguments; read as no arguments (a load_skill made so loads nothing)."
    ),
    "arguments_ambiguous": _(
        "Message %(number)s: the arguments of %(tool)s are ambiguous JSON (%(cause)s); read as no arguments."
    ),
    "message_ambiguous": _(
        "Message %(number)s: ambiguous JSON (%(cause)s); its results are read as failed and its "
        "calls as having no arguments, so it loads nothing."
    ),
    "duplicate_call_id": _(
        "Message %(number)s: %(count)s calls share the id %(call_id)s; their results are paired by position."
    ),
    "call_id_missing": _(
        "Message %(number)s: calls without an id (%(tools)s) among several calls; no result can answer them."
    ),
    "result_unpaired": _(
        "Message %(number)s: the tool result for id %(call_id)s answers no earlier unanswered "
        "call; without a marker it loads nothing."
    ),
    "result_id_missing": _(
        "Message %(number)s: a tool result without an id that does not directly follow an "
        "assistant message with exactly one call without an id; without a marker it loads "
        "nothing."
    ),
    "evicted_ambiguous": _("Message %(number)s: metadata.evicted is %(value)s, not true or false; read as evicted."),
    "already_loaded_ambiguous": _(
        "Message %(number)s: metadata.already_loaded is %(value)s, not true or false; "
        "read as the already-loaded stub, it loads nothing."
    ),
    "marker_not_load_skill": _(
        "Message %(number)s: the result carries the marker %(marker)s but answers "
        "%(tool)s, not load_skill; it loads nothing."
    ),
    "marker_invalid": _("Message %(number)s: metadata.%(key)s is %(value)s, not a skill code; it loads nothing."),
    "marker_missing": _(
        "Message %(number)s: the load_skill result for %(skill)s has metadata without %(key)s; it loads nothing."
    ),
    "error_flag_ambiguous": _(
        "Message %(number)s: %(block)s%(flag)s is %(value)s, which says neither success "
        "nor failure; the result is read as failed (a load_skill result then loads nothing)."
    ),
    "skill_version_invalid": _(
        "Message %(number)s: metadata.skill_version is %(value)s, not a version number; "
        "the manual of %(skill)s counts as naming no version."
    ),
    "manual_empty": _("Message %(number)s: the load_skill result for %(skill)s is empty; it loads nothing."),
    "manual_incomplete": _(
        "Message %(number)s: the load_skill result for %(skill)s does not hold a whole "
        "published manual of it (%(chars)s characters); it loads nothing."
    ),
    "marker_mismatch": _(
        "Message %(number)s: the result carries the manual of %(skill)s but answers "
        "load_skill(%(asked)s); it loads nothing."
    ),
    "manual_outdated": _(
        "Message %(number)s: the retained manual of %(skill)s is version %(version)s, the skill "
        "is now version %(current)s; it releases %(tools)s, which that manual may not mention."
    ),
    "tool_definition_invalid": _(
        "The tool %(tool)s has an invalid definition (%(problems)s); calls to it are refused."
    ),
    "pairing_ambiguous": _(
        "Message %(number)s: the tool result for id %(call_id)s may answer any of %(count)s "
        "different calls sharing that id (%(calls)s); without a marker naming one of their "
        "skills it loads nothing."
    ),
    "metadata_invalid": _(
        "Message %(number)s: %(block)smetadata is %(value)s, not an object; read as untrusted, "
        "the message loads nothing."
    ),
    "tool_calls_invalid": _("Message %(number)s: tool_calls is %(value)s, not a list; read as no calls."),
    "call_id_invalid": _(
        "Message %(number)s: %(field)s is %(value)s, not a string; read as no id, nothing pairs "
        "with it (without a marker nothing loads)."
    ),
}

#: Codes of ``MESSAGES_BY_CODE`` that are round warnings (shown as notes, not refusals).
WARNING_CODES = frozenset(
    {
        "arguments_unparseable",
        "arguments_not_object",
        "arguments_double_encoded",
        "duplicate_call_id",
        "call_id_missing",
        "result_unpaired",
        "result_id_missing",
        "manual_empty",
        "manual_incomplete",
        "marker_mismatch",
        "manual_outdated",
        "tool_definition_invalid",
        "evicted_ambiguous",
        "already_loaded_ambiguous",
        "marker_not_load_skill",
        "marker_invalid",
        "marker_missing",
        "skill_version_invalid",
        "error_flag_ambiguous",
        "pairing_ambiguous",
        "metadata_invalid",
        "tool_calls_invalid",
        "call_id_invalid",
        "arguments_free_text",
        "arguments_ambiguous",
        "message_ambiguous",
    }
)


#: Causes of skill-file refusals and warnings (``domain.skill_files``, ``skill_io``), by code; the
#: English templates are the domain's own (``tests/views/test_skill_import.py`` keeps them equal).
SKILL_FILE_MESSAGES: dict[str, Any] = {
    "kind_other": _("a %(type)s (%(value)s)"),
    "kind_nothing": _("nothing"),
    "kind_boolean": _("a boolean (%(value)s)"),
    "kind_number": _("a number (%(value)s)"),
    "kind_mapping": _("a mapping"),
    "kind_list": _("a list"),
    "kind_empty_string": _("an empty string"),
    "allowed_tools_empty": _("allowed-tools is empty; leave the key out for a manual that gates no tool"),
    "allowed_tools_type": _("allowed-tools must be tool names separated by spaces (or a list), not %(kind)s"),
    "allowed_tools_item": _("allowed-tools item %(index)s must be a tool name, not %(kind)s"),
    "import_not_bool": _("%(key)s must be true or false, not %(value)r"),
    "import_not_int": _("%(key)s must be a whole number, not %(value)r"),
    "front_matter_missing": _("SKILL.md must start with YAML front matter: a first line '---'"),
    "front_matter_unclosed": _("the front matter opened on line 1 is never closed by a line '---'"),
    "front_matter_yaml": _("invalid YAML front matter: %(cause)s"),
    "front_matter_not_mapping": _("the front matter must be a mapping of keys (name, description, …), not %(kind)s"),
    "metadata_not_mapping": _("metadata must be a mapping of keys, not %(kind)s"),
    "value_not_text": _("%(key)s must be text, not %(kind)s; put it in quotes"),
    "import_too_many_files": _("holds more than %(max)s files; import it in parts"),
    "import_not_folder": _("not a folder"),
    "import_link_out": _("a symbolic link that points out of the dataset folder; not read"),
    "import_not_regular": _("not a regular file; not read"),
    "import_file_too_big": _("%(size)s bytes; at most %(max)s bytes per file"),
    "import_path_too_big": _("is %(size)s bytes; at most %(max)s bytes per file"),
    "import_upload_too_big": _("is %(size)s bytes; at most %(max)s bytes may be uploaded"),
    "import_upload_too_many": _("more than %(max)s files; upload a zip"),
    "import_zip_and_files": _("upload one zip, or single files without a zip"),
    "import_unpacks_too_big": _("unpacks to more than %(max)s bytes; at most %(max)s per file"),
    "import_missing": _("no such file or folder"),
    "import_too_many_bytes": _("holds more than %(max)s bytes; import it in parts"),
    "import_not_zip": _("is not a readable zip archive (%(cause)s)"),
    "import_unsafe_entry": _("entry '%(entry)s' has an unsafe path (absolute, '..' or '\\'); the archive is refused"),
    "import_entry_twice": _("entry '%(entry)s' appears twice; the archive is refused"),
    "import_entry_link": _("entry '%(entry)s' is a symbolic link; the archive is refused"),
    "import_unpack_failed": _("cannot be unpacked (%(cause)s)"),
    "import_unpacks_too_many_bytes": _("unpacks to more than %(max)s bytes; import it in parts"),
    "import_no_name": _("a file has no usable name ('%(name)s')"),
    "import_same_name": _("two files are named '%(name)s'; upload a folder as a zip instead"),
    "import_files_too_many_bytes": _("more than %(max)s bytes in all; import them in parts"),
    "import_not_utf8": _("not UTF-8 text (byte 0x%(byte)s)"),
    "import_lone_surrogate": _("a lone surrogate (\\u%(code)s) is not text; write the character itself"),
    "content_file_empty": _("content-file is empty; name the markdown manual next to this file"),
    "content_file_absolute": _("content-file '%(value)s' must be a relative path with '/' separators"),
    "content_file_parent": _(
        "content-file '%(value)s' may not contain '..'; the manual must be inside the dataset folder"
    ),
    "content_file_unusable": _("content-file '%(value)s' is not a usable path"),
    "content_file_refused": _("content-file '%(value)s': %(reason)s"),
    "content_file_missing": _("content-file '%(value)s' is not in the dataset (looked for '%(path)s')"),
    "tool_ids_empty": _("tool-ids is empty; leave the key out for a manual that gates no tool"),
    "missing_key": _("missing key '%(key)s'"),
    "key_twice": _("key '%(key)s' is set twice (first on line %(first)s)"),
    "key_not_plain": _("a key must be a plain name"),
    "key_not_name": _("key %(key)r is not a name"),
    "key_not_kept": _("'%(key)s' is an Agent Skills key that Skill Console does not keep; not imported"),
    "unknown_tool_key": _(
        "unknown key '%(key)s'; the gated tools are read from '%(tool_key)s' only (the skill would gate no tool)"
    ),
    "unknown_key": _("unknown key '%(key)s' is not imported (keys read: %(keys)s)"),
    "bad_u_escape": _("invalid \\u escape '%(escape)s'"),
    "folder_not_name": _(
        "the folder is '%(folder)s' but name is '%(name)s' (Agent Skills expects them equal); the "
        "skill code is taken from %(taken)s"
    ),
    "not_a_skill_file": _(
        "not a skill file (*.properties or SKILL.md) nor a manual that a declaration names; not imported"
    ),
    "code_declared_twice": _("skill code '%(code)s' is also declared by %(others)s; nothing of either is imported"),
    "import_releases": _(
        "no longer gates %(tools)s: released to every conversation unless another enabled skill gates it"
    ),
    "import_disables": _("the skill is disabled by this file; its tools are released to every conversation"),
}
MESSAGES_BY_CODE.update(SKILL_FILE_MESSAGES)

# Refusals of ``services.skill_revert`` (docs/roles.md).
MESSAGES_BY_CODE.update(
    {
        "revision_not_found": _("revision %(id)s is not a revision of skill '%(code)s'."),
        "revision_current": _("skill '%(code)s' already holds the values of revision %(id)s."),
    }
)

# Lints (``domain.lints``, docs/lints.md): warnings about a skill, never blocking.
MESSAGES_BY_CODE.update(
    {
        "description_long": _(
            "The description is %(length)s characters long; keep it within %(limit)s "
            "(the model reads it in every round)."
        ),
        "manual_long": _(
            "The manual is %(length)s characters long; keep it within %(limit)s (it fills the context while loaded)."
        ),
        "mention_unregistered": _("The manual names %(tool)s, which is not a registered tool."),
        "mention_gated_elsewhere": _(
            "The manual names %(tool)s, which %(owners)s gates: mentioning it unlocks "
            "nothing. Load %(owners)s or gate it here."
        ),
        "gated_read_only": _("Gates %(tool)s, a read-only tool: hiding it behind a manual only slows the model down."),
        "confirm_ungated": _("%(tool)s needs confirmation but no skill gates it: the model gets it without a manual."),
        "description_duplicate": _(
            "The description is the same as that of %(others)s: the model cannot tell them apart."
        ),
    }
)

#: Codes of ``MESSAGES_BY_CODE`` that are lints (``domain.lints.Lint.code``).
LINT_CODES = frozenset(
    {
        "description_long",
        "manual_long",
        "mention_unregistered",
        "mention_gated_elsewhere",
        "gated_read_only",
        "confirm_ungated",
        "description_duplicate",
    }
)

# Reasons of the release gate (``domain.releases.gate``, docs/releases.md).
MESSAGES_BY_CODE.update(
    {
        "gate_dangling": _(
            "skill %(code)s gates %(tools)s, which is not a registered tool (unknown, or its MCP node is disabled)"
        ),
        "gate_unavailable": _(
            "skill %(code)s is broken: it gates %(tool)s, which MCP server %(server)s no longer offers "
            "(sync the server again, or remove the tool from the skill)"
        ),
        "gate_orphaned": _(
            "skill %(code)s is broken: it gates %(tool)s, whose MCP server record %(server)s was deleted "
            "(register the server again and sync it, or remove the tool from the skill)"
        ),
        "gate_unchanged": _("nothing changed since release %(number)s"),
        "gate_scenario_error": _("scenario %(name)s does not run: %(cause)s"),
        "gate_scenario": _("scenario %(name)s: %(failure)s"),
        "gate_payload": _("%(target)s would refuse the request: %(problem)s (first: %(where)s; rounds: %(count)s)"),
        "gate_payload_budget": _(
            "%(where)s: the tools payload for %(target)s is %(actual)s characters, over its budget of %(limit)s "
            "(rounds of this scenario over it: %(count)s)"
        ),
        "gate_where_round": _("scenario %(name)s round %(round)s"),
        "gate_where_all_loaded": _("the round with every manual loaded"),
    }
)

# What a provider target refuses, finds over budget or rewrote in a round's tools payload
# (``skill_rule.providers.PayloadProblem``, by ``payload_<rule>``; docs/providers.md).
MESSAGES_BY_CODE.update(
    {
        "payload_tool_count": _("%(actual)s tools in one request; %(target)s accepts at most %(limit)s"),
        "payload_name_pattern": _("%(target)s refuses the tool name %(tool)s: it must match %(limit)s"),
        "payload_name_length": _("%(target)s refuses the tool name %(tool)s: %(actual)s characters, at most %(limit)s"),
        "payload_description_length": _(
            "%(target)s refuses %(tool)s: its description has %(actual)s characters, at most %(limit)s"
        ),
        "payload_object_without_properties": _(
            "%(target)s refuses %(tool)s: an object schema without properties at %(path)s"
        ),
        "payload_object_without_properties_rewritten": _(
            'rewritten for %(target)s: %(tool)s gets "properties": {} at %(path)s (the stored schema is unchanged)'
        ),
        "payload_array_without_items": _("%(target)s refuses %(tool)s: an array schema without items at %(path)s"),
        "payload_top_level_combinator": _("%(target)s refuses %(tool)s: %(actual)s at the top level of its schema"),
        "payload_payload_budget": _(
            "the %(target)s tools payload is %(actual)s characters, over its budget of %(limit)s"
        ),
        "payload_schema_root": _("the root"),
    }
)

# Simulation events (``Simulation.events``: compaction and eviction, docs/simulator.md); the
# retained-message count after ``compacted`` is a plural (``ngettext``, in the presenter).
MESSAGES_BY_CODE.update(
    {
        "compacted": _("Compaction removed messages %(indices)s from the context."),
        "evicted": _(
            "Tool results %(indices)s were evicted (%(what)s): replaced by the placeholder, so a "
            "manual among them no longer counts as loaded."
        ),
        "evict_none_of_tool": _("Eviction: no retained tool result of %(tool)s, so the context is unchanged."),
        "evict_none": _("Eviction matched no tool result: the context is unchanged."),
    }
)

# Simulation warnings (``restriction_unregistered`` has one sentence per kind of restriction).
MESSAGES_BY_CODE.update(
    {
        "restriction_unregistered_profile": _(
            "The access profile %(name)s lists tools that are no longer registered: %(tools)s. They are ignored."
        ),
        "restriction_unregistered_stage": _(
            "The stage %(name)s lists tools that are no longer registered: %(tools)s. They are ignored."
        ),
        "allowed_unregistered": _("Allowed tools that are not registered: %(tools)s. They are ignored."),
        "skill_gates_unregistered": _(
            "The skill %(skill)s gates tools that are no longer registered: %(tools)s. "
            "They are neither visible nor masked."
        ),
        "time_budget": _("Stopped after %(done)s of %(total)s rounds: the time budget of %(budget)s s was exceeded."),
    }
)

# Unmet expectations (``simulator.check_expectations``); ``expect_list`` has one sentence per
# list it compares (``expect_list_<what>``).
MESSAGES_BY_CODE.update(
    {
        "expect_count": _("expected %(want)s tools, got %(got)s"),
        "expect_list_visible": _("expected visible tools %(want)s, got %(got)s"),
        "expect_list_mcp_visible": _("expected visible MCP tools %(want)s, got %(got)s"),
        "expect_list_loaded": _("expected loaded skills %(want)s, got %(got)s"),
        "expect_visible": _("expected %(tool)s to be visible"),
        "expect_hidden": _("expected %(tool)s not to be visible"),
        "expect_masked": _("expected masked %(want)s, got %(got)s"),
    }
)

#: The lists an expectation compares (``expect_list`` / ``expect_masked`` ``what``), by name.
EXPECTATION_LABELS: dict[str, Any] = {
    "visible": _("Visible tools"),
    "mcp_visible": _("Visible MCP tools"),
    "loaded": _("Loaded skills"),
    "masked": _("Masked tools"),
}

#: The guard's verdicts (docs/rule.md, "Guard"), by verdict (``allowed``, ``confirm``) or refusal
#: reason (``Verdict.reason``); ``<reason>_<variant>`` where one reason has two sentences.
VERDICT_MESSAGES: dict[str, Any] = {
    "allowed_load_skill": _("Loads the manual of %(skill)s."),
    "allowed": _("%(tool)s may run."),
    "confirm": _("%(tool)s stops at a confirmation card: it runs only once the user confirms."),
    "masked": _("%(tool)s is masked: load the manual %(skill)s first (load_skill)."),
    "unknown_tool": _("%(tool)s is not a registered tool. Tools on offer in this round: %(tools)s."),
    "unknown_skill_missing": _("load_skill was called without a skill_code. Skills on offer: %(skills)s."),
    "unknown_skill": _("%(skill)s is not an enabled skill. Skills on offer: %(skills)s."),
    "not_permitted_profile": _("%(tool)s is not permitted by the access profile %(profile)s."),
    "not_permitted": _("%(tool)s is not in the allowed tool list."),
    "stage": _("%(tool)s is not allowed in the stage %(stage)s."),
    "invalid_tool_definition": _("%(tool)s has an invalid stored definition, so every call to it is refused."),
    "invalid_arguments": _("Invalid arguments for %(tool)s:"),
}


#: Short labels of the guard's verdicts and reasons and of the matrix states, for tables and badges
#: (docs/rule.md, docs/runtime-api.md).
VERDICT_LABELS = {"allowed": _("allowed"), "refused": _("refused"), "confirm": _("needs confirmation")}
REASON_LABELS = {
    "masked": _("masked"),
    "unknown_tool": _("unknown tool"),
    "unknown_skill": _("unknown skill"),
    "not_permitted": _("not permitted by the access profile"),
    "stage": _("not allowed in this stage"),
    "invalid_arguments": _("invalid arguments"),
    "invalid_tool_definition": _("invalid tool definition"),
}
STATE_LABELS = {"masked": _("masked"), "released": _("released"), "withheld": _("withheld"), "open": _("open")}
#: Short labels of a payload problem's ``action`` (``skill_rule.providers``).
PAYLOAD_ACTION_LABELS = {"refused": _("refused"), "over_budget": _("over budget"), "rewritten": _("rewritten")}


def translate_error(error: ValidationError | Problem) -> str:
    """The sentence of one service ``ValidationError`` (or domain ``Problem``) in the active
    language, chosen by its ``code`` and filled with its ``params``; without a known code, the
    error's own (English) sentence."""
    code = getattr(error, "code", None)
    params = dict(getattr(error, "params", None) or {})
    template = MESSAGES_BY_CODE.get(code or "")
    if template is not None:
        return str(template) % params if params else str(template)
    if isinstance(error, Problem):
        return str(error)
    return " ".join(error.messages)


def problem_text(cause: Problem | str) -> str:
    """A skill-file cause in the active language (by its code; params that are causes themselves
    too); a cause without a known code, or plain text, stays the English sentence."""
    if not isinstance(cause, Problem):
        return str(cause)
    template = MESSAGES_BY_CODE.get(cause.code)
    if template is None:
        return str(cause)
    params = {k: problem_text(v) if isinstance(v, Problem) else v for k, v in cause.params.items()}
    return str(template) % params if params else str(template)


def iter_errors(exc: ValidationError) -> Iterable[tuple[str | None, ValidationError]]:
    """Every single error of a (possibly nested) ``ValidationError`` as ``(field, error)``
    (``None`` for a non-field error)."""
    if hasattr(exc, "error_dict"):
        for field, errors in exc.error_dict.items():
            for e in errors:
                yield (None if field == "__all__" else field), e
    else:
        for e in exc.error_list:
            yield None, e


def error_sentences(exc: ValidationError) -> list[str]:
    """Every error of ``exc`` translated (``translate_error``), in order, without its field."""
    return [translate_error(e) for _field, e in iter_errors(exc)]


#: The notes the console writes on a release itself, by kind: English templates with one
#: placeholder each (``gettext_noop``: stored in English, as the command line and the runtime read
#: them). Their writers fill the template; pages show ``release_note_text``.
AUTO_RELEASE_NOTES: dict[str, str] = {
    "rollback": gettext_noop("rollback to release %(number)s"),
    "demo": gettext_noop("demo catalog '%(name)s'"),
    "demo_targets": gettext_noop("call targets of the synced demo MCP server '%(server)s'"),
}


def _note_values(template: str, note: str) -> dict[str, str] | None:
    """The value of ``template``'s one placeholder when ``note`` is the template filled whole, else
    ``None``: ``("rollback to release %(number)s", "rollback to release 3")`` → ``{"number": "3"}``."""
    prefix, _sep, rest = template.partition("%(")
    key, _sep, suffix = rest.partition(")s")
    if len(note) > len(prefix) + len(suffix) and note.startswith(prefix) and note.endswith(suffix):
        return {key: note[len(prefix) : len(note) - len(suffix)]}
    return None


def release_note_text(note: str) -> str:
    """A release's note in the active language: a note the console wrote itself
    (``AUTO_RELEASE_NOTES``, matched whole) translated with its value; any other note (a person's)
    as it is. A person who types a note in the very words of one reads it translated too."""
    for template in AUTO_RELEASE_NOTES.values():
        values = _note_values(template, note or "")
        if values is not None:
            return gettext(template) % values
    return note


#: The sentences of an MCP sync (``mcp.sync``, ``mcp.tasks``; the naming rule's own are
#: ``skill_rule.naming``'s, the hints', bounds' and definitions' ``skill_rule.tooldefs``'), English
#: templates by code (``gettext_noop``: stored in English, as the command line and the admin read
#: them; tests/mcp/test_sync_messages.py keeps the domain's templates equal to these). A warning is
#: stored as a ``sync_entry``; the cause of a failure (``McpSyncRecord.message``, a text) and a
#: tool's ``naming_warning`` are stored as their English sentence, which pages match against these
#: templates (``web.presenters.sync_cause_html``, ``naming_warning_html``). In the params, a text is
#: what the server (or its record) says — a name, an error, its stderr — and stays as written; an
#: entry (or a list of them, joined by ``SYNC_LIST_SEPARATOR``) is a sentence of its own.
SYNC_MESSAGES: dict[str, str] = {
    # why a sync failed (``McpSyncRecord.message``): "server 'x': <cause>", the end of its stderr after
    "sync_failed": gettext_noop("server '%(server)s': %(cause)s"),
    "sync_failed_stderr": gettext_noop("server '%(server)s': %(cause)s (server stderr: %(stderr)s)"),
    "sync_disabled": gettext_noop("server '%(server)s' is disabled; enable it to sync"),
    "sync_abandoned": gettext_noop(
        "abandoned: still running at its deadline (%(deadline)s, the server's time limit plus the task margin); "
        "the worker running it was stopped or killed, or no task worker is running (manage.py qcluster); the "
        "previous tools were kept"
    ),
    # the console's own causes (any other cause is the server's, or its SDK's, error as it was raised)
    "sync_time_limit": gettext_noop("no complete answer within the time limit of %(limit)s seconds"),
    "sync_no_tool_list": gettext_noop("tools/list answered without a list of tools"),
    "sync_not_a_page": gettext_noop("tools/list answered a page that is not a tools/list result (%(error)s)"),
    "sync_cursor_repeated": gettext_noop("tools/list repeated cursor %(cursor)s; the list never ends"),
    "sync_endless": gettext_noop("tools/list still had a next cursor after %(pages)s pages"),
    "sync_task_stopped": gettext_noop("the task stopped: %(error)s"),
    "sync_not_queued": gettext_noop("the sync could not be queued: %(error)s"),
    # warnings of a sync that succeeded (``McpSyncRecord.warnings``)
    "sync_refused_bounds": gettext_noop(
        "server '%(server)s' lists tool '%(tool)s' past the bounds of a synced definition (%(problems)s); "
        "it is not offered"
    ),
    "sync_refused_schema": gettext_noop(
        "server '%(server)s' lists tool '%(tool)s' with a definition the MCP schema refuses (%(error)s); "
        "it is not offered"
    ),
    "sync_refused_copy": gettext_noop(
        "server '%(server)s' lists tool '%(tool)s' again with a definition the MCP schema accepts; with one "
        "copy refused, neither is offered"
    ),
    "sync_hint": gettext_noop("server '%(server)s': %(problem)s"),
    "sync_invalid_definition": gettext_noop(
        "tool '%(tool)s' of server '%(server)s' has an invalid definition: %(problems)s (the publish gate "
        "refuses it while an MCP node registers it)"
    ),
    "sync_provider_refuses": gettext_noop(
        "tool '%(tool)s' of server '%(server)s' would make %(target)s refuse every request that offers it: %(problems)s"
    ),
    # model-facing names (``skill_rule.naming``): a warning, and the tool's ``naming_warning``
    "naming_listed_twice": gettext_noop(
        "server '%(server)s' lists tool '%(tool)s' %(count)s times; none of them is offered"
    ),
    "naming_builtin": gettext_noop(
        "tool '%(tool)s' of server '%(server)s' is offered as '%(name)s': '%(base)s' is the name of a builtin tool"
    ),
    "naming_other_server": gettext_noop(
        "tool '%(tool)s' of server '%(server)s' is offered as '%(name)s': '%(base)s' is the name of server '%(holder)s'"
    ),
    "naming_typed_in": gettext_noop(
        "tool '%(tool)s' of server '%(server)s' is offered as '%(name)s': '%(base)s' is the name of a tool "
        "definition typed in without a server"
    ),
    "naming_collision": gettext_noop(
        "tool '%(tool)s' of server '%(server)s' is offered as '%(name)s': its name becomes '%(base)s', like %(others)s"
    ),
    "naming_collision_held": gettext_noop(
        "tool '%(tool)s' of server '%(server)s' is offered as '%(name)s': its name becomes '%(base)s', like "
        "another tool's held name '%(held)s'"
    ),
    # the domain's problems inside a warning (``skill_rule.tooldefs``), by their own codes
    "annotations_invalid": gettext_noop(
        "tool %(tool)s: %(where)s is %(value)s, which MCP does not allow there (a hint is true or false, the "
        "annotations an object); its calls need confirmation"
    ),
    "annotations_contradictory": gettext_noop(
        "tool %(tool)s: annotations say readOnlyHint true and destructiveHint true, which contradict each "
        "other; its calls need confirmation"
    ),
    "tool_title_too_long": gettext_noop("%(field)s is %(size)s characters; the limit is %(limit)s"),
    "tool_description_too_long": gettext_noop("%(field)s is %(size)s characters; the limit is %(limit)s"),
    "tool_schema_too_large": gettext_noop("%(field)s is %(size)s bytes of canonical JSON; the limit is %(limit)s"),
    "tool_name_invalid": gettext_noop(
        "tool name %(name)s must be 1–64 ASCII letters, digits, '_' or '-' (what OpenAI and Anthropic accept)"
    ),
    "input_schema_not_object": gettext_noop("inputSchema must be a JSON object, got %(kind)s"),
    "input_schema_type": gettext_noop('inputSchema must have "type": "object", got %(value)s'),
    "input_schema_dialect": gettext_noop(
        "inputSchema $schema %(dialect)s names a JSON Schema dialect the console does not know (it knows drafts "
        "3, 4, 6, 7, 2019-09 and 2020-12); the schema is not validated as another one"
    ),
    "input_schema_invalid": gettext_noop("inputSchema is not a valid JSON Schema at %(where)s: %(cause)s"),
    "input_schema_ref": gettext_noop("inputSchema $ref %(ref)s does not resolve"),
    # what a provider target refuses in a tool (``skill_rule.providers.problem_text``), ``sync_payload_<rule>``
    # (``…_at``: at a path of the schema)
    "sync_payload_tool_count": gettext_noop("%(actual)s tools in one request; at most %(limit)s"),
    "sync_payload_name_pattern": gettext_noop("tool name '%(tool)s' does not match %(limit)s"),
    "sync_payload_name_length": gettext_noop("tool name '%(tool)s' has %(actual)s characters; at most %(limit)s"),
    "sync_payload_description_length": gettext_noop(
        "the description of '%(tool)s' has %(actual)s characters; at most %(limit)s"
    ),
    "sync_payload_object_without_properties": gettext_noop(
        "the schema of '%(tool)s' has an object without 'properties'"
    ),
    "sync_payload_object_without_properties_at": gettext_noop(
        "the schema of '%(tool)s' has an object without 'properties' at '%(path)s'"
    ),
    "sync_payload_array_without_items": gettext_noop("the schema of '%(tool)s' has an array without 'items'"),
    "sync_payload_array_without_items_at": gettext_noop(
        "the schema of '%(tool)s' has an array without 'items' at '%(path)s'"
    ),
    "sync_payload_top_level_combinator": gettext_noop("the schema of '%(tool)s' has '%(actual)s' at the top level"),
    "sync_payload_payload_budget": gettext_noop("the tools payload is %(actual)s characters; the budget is %(limit)s"),
}
#: Between the sentences of one sync message (the bounds a tool breaks, the problems of its definition).
SYNC_LIST_SEPARATOR = pgettext_lazy("between the sentences of one sync message", "; ")
#: The codes of ``SYNC_MESSAGES`` a failed sync's cause is matched against, the most specific first.
SYNC_FAILURE_CODES = ("sync_abandoned", "sync_disabled", "sync_failed_stderr", "sync_failed")
#: The console's own causes inside ``sync_failed`` (any other is the server's error, as raised).
SYNC_CAUSE_CODES = (
    "sync_time_limit",
    "sync_no_tool_list",
    "sync_not_a_page",
    "sync_cursor_repeated",
    "sync_endless",
    "sync_task_stopped",
    "sync_not_queued",
)
#: The codes of ``SYNC_MESSAGES`` a tool's ``naming_warning`` is matched against.
NAMING_CODES = (
    "naming_listed_twice",
    "naming_builtin",
    "naming_other_server",
    "naming_typed_in",
    "naming_collision_held",
    "naming_collision",
)


def _english(value: Any) -> Any:
    """A param of a ``sync_entry`` as its English sentence fills it: an entry's text, a list of
    entries joined by ``; ``, anything else as it is."""
    if isinstance(value, dict):
        return value.get("text", "")
    if isinstance(value, list):
        return "; ".join(str(_english(v)) for v in value)
    return value


def sync_entry(code: str, **params: Any) -> dict[str, Any]:
    """A sync message as stored: ``{"code", "params", "text"}``, ``text`` the English sentence of
    ``SYNC_MESSAGES[code]`` filled with ``params`` (an entry param by its text, a list of entries
    joined by ``; ``)."""
    return {"code": code, "params": params, "text": SYNC_MESSAGES[code] % {k: _english(v) for k, v in params.items()}}


def problem_entry(problem: Problem | str) -> dict[str, Any]:
    """A domain ``Problem`` as a ``sync_entry``-shaped dict (its code, params and English sentence);
    plain text as an entry of no code (shown as it is)."""
    if isinstance(problem, Problem):
        return {"code": problem.code, "params": dict(problem.params), "text": str(problem)}
    return {"code": "", "params": {}, "text": str(problem)}


def sync_entry_consistent(entry: Any) -> bool:
    """True when ``entry`` is a dict whose code is in ``SYNC_MESSAGES`` and whose English text is
    that template filled with its params — what a page may show translated. Anything else (an old
    plain-text warning, an entry from a template since reworded) is shown as stored."""
    if not isinstance(entry, dict) or not isinstance(entry.get("params"), dict):
        return False
    template = SYNC_MESSAGES.get(entry.get("code") or "")
    if template is None:
        return False
    try:
        return template % {k: _english(v) for k, v in entry["params"].items()} == entry.get("text")
    except (KeyError, TypeError, ValueError):
        return False


def sync_message_plain(message: Any) -> str:
    """A stored sync message's English text: an entry's ``text``, anything else as a string."""
    if isinstance(message, dict):
        return str(message.get("text", ""))
    return str(message)
