"""Forms of the catalog pages: the skill editor (with its tool picker), restrictions and intent
nodes. They only validate (STYLE "Forms validate; services write"): a view binds one, and when it
is valid calls ONE service of ``catalog.services`` with ``service_arguments()``
(``web.common.save_with``); a refusal lands back on the form's fields through
``add_service_errors``, translated by code (``core.message_catalog``), and nothing is saved.
``clean()`` may read (selectors, the rule's pure validation) but never writes. A form built with
``preview=True`` validates with the same rule (``skill_rule.clean_skill``): STYLE "Preview never saves"."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from skill_rule import catalog as dom
from skill_rule import limits
from skill_rule.errors import SkillValidationError
from skill_rule.limits import DESCRIPTION_MAX_LENGTH, NAME_MAX_LENGTH, SKILL_CODE_MAX_LENGTH
from skill_rule.validation import clean_skill, normalize_newlines, normalize_tool_ids
from skills_app.catalog import selectors
from skills_app.core.message_catalog import MESSAGES_BY_CODE, iter_errors, translate_error
from skills_app.models import Skill
from skills_app.simulation.forms import NAME_RULE
from skills_app.web.forms import AnyValueMultipleChoiceField, ServiceForm


@dataclass(frozen=True)
class ToolOption:
    """One checkbox of a tool picker: a registered MCP tool or a submitted/stored id that is not
    one (``registered`` False, shown as an error so it never silently disappears)."""

    tool_id: str
    title: str
    checked: bool
    registered: bool
    require_confirm: bool = False
    available: bool = True
    gated_by: tuple[str, ...] = ()


def tool_options(
    rows: list[selectors.McpNodeRow], selected: Iterable[str], gated_by: dict[str, tuple[str, ...]] | None = None
) -> list[ToolOption]:
    """Registered MCP tools in registration order, then any selected id that is not registered."""
    chosen = list(normalize_tool_ids(list(selected)))
    registered = {r.tool_id for r in rows}
    gated_by = gated_by or {}
    opts = [
        ToolOption(
            tool_id=r.tool_id,
            title=(r.definition.title if r.definition and r.definition.title else r.node.name),
            checked=r.tool_id in chosen,
            registered=True,
            require_confirm=r.node.require_confirm,
            available=r.available,
            gated_by=gated_by.get(r.tool_id, ()),
        )
        for r in rows
    ]
    opts += [ToolOption(tool_id=t, title="", checked=True, registered=False) for t in chosen if t not in registered]
    return opts


@dataclass(frozen=True)
class ToolPicker:
    """What a tool picker shows: ``options`` (every registered tool, or only the ticked and
    unregistered ones when ``searchable``), ``searchable`` (a search box fetches the others from
    ``GET /tools/options``) and ``registered`` (how many MCP tools are registered)."""

    options: list[ToolOption]
    searchable: bool
    registered: int


def tool_picker(
    rows: list[selectors.McpNodeRow], selected: Iterable[str], gated_by: dict[str, tuple[str, ...]] | None = None
) -> ToolPicker:
    """The picker of an editor: the full list (``tool_options``) while the registered MCP tools
    number at most ``limits.PICKER_FULL_LIST_MAX``; past it only the ticked options (and selected
    ids that are not registered) with ``searchable`` True, so a page of 2,000 tools renders a
    handful of labels (docs/benchmarks.md). Read at call time: tests lower the limit."""
    selected = list(selected)
    if len(rows) <= limits.PICKER_FULL_LIST_MAX:
        return ToolPicker(options=tool_options(rows, selected, gated_by), searchable=False, registered=len(rows))
    # only the ticked rows become options (the unregistered selected ids follow them, as in the
    # full list): no option object for each of 2,000 tools on every editor view
    chosen = set(normalize_tool_ids(selected))
    ticked = tool_options([r for r in rows if r.tool_id in chosen], selected, gated_by)
    return ToolPicker(options=ticked, searchable=True, registered=len(rows))


def tool_search(
    rows: list[selectors.McpNodeRow],
    query: str,
    selected: Iterable[str],
    gated_by: dict[str, tuple[str, ...]] | None = None,
    *,
    limit: int | None = None,
) -> tuple[list[ToolOption], int]:
    """Registered MCP tools, unticked, matching ``query`` — a case-insensitive substring of the
    tool id, its title or the code of a skill gating it (blank: every tool) — in registration
    order, leaving out the ids in ``selected`` (the picker already shows them). Returns the first
    ``limit`` (default ``limits.PICKER_SEARCH_MAX``) and how many match in all. Never raises: any
    text is a query (one that matches nothing gives ``([], 0)``)."""
    limit = limits.PICKER_SEARCH_MAX if limit is None else limit
    needle = (query or "").strip().lower()
    shown = set(normalize_tool_ids(list(selected)))
    found = [
        o
        for o in tool_options(rows, (), gated_by)
        if o.tool_id not in shown
        and (
            not needle
            or needle in o.tool_id.lower()
            or needle in o.title.lower()
            or any(needle in code.lower() for code in o.gated_by)
        )
    ]
    return found[:limit], len(found)


# --------------------------------------------------------------------------------------------
# Skills
# --------------------------------------------------------------------------------------------
#: Fields compared when a save is refused as stale, with their labels.
STALE_FIELDS = {
    "name": _("Name"),
    "description": _("Description"),
    "tool_ids": _("Gated tools"),
    "sort_order": _("Sort order"),
    "enabled": _("Enabled"),
}


def _lines(text: str) -> list[str]:
    return (text or "").replace("\r\n", "\n").replace("\r", "\n").split("\n")


@dataclass(frozen=True)
class StaleEdit:
    """What a stale save ran into: the version saved meanwhile, the version the editor started
    from, a unified diff of the saved manual against the typed one (``difflib``, as
    ``(kind, line)`` with kind ``head`` / ``hunk`` / ``del`` / ``add`` / ``ctx``) and the labels of
    the other fields whose saved value differs from the typed one."""

    version: int
    base: int | None
    diff: tuple[tuple[str, str], ...]
    other_fields: tuple[str, ...]

    @classmethod
    def build(cls, current: Skill, *, base: Any, typed: dict[str, Any]) -> StaleEdit:
        saved_label = gettext("version %(n)s (saved)") % {"n": current.version}
        typed_label = gettext("your text")
        diff = []
        lines = difflib.unified_diff(
            _lines(current.content),
            _lines(typed.get("content", "")),
            fromfile=saved_label,
            tofile=typed_label,
            n=2,
            lineterm="",
        )
        for i, line in enumerate(lines):
            if i < 2:  # the two file headers; a removed manual line "---" (diff line "----") is a deletion
                kind = "head"
            elif line.startswith("@@"):
                kind = "hunk"
            else:
                kind = {"-": "del", "+": "add"}.get(line[:1], "ctx")
            diff.append((kind, line))
        saved = {
            "name": current.name,
            "description": current.description,
            "tool_ids": list(normalize_tool_ids(list(current.tool_ids))),
            "sort_order": current.sort_order,
            "enabled": current.enabled,
        }
        mine = {
            "name": (typed.get("name") or "").strip(),
            "description": (typed.get("description") or "").strip(),
            "tool_ids": list(normalize_tool_ids(list(typed.get("tool_ids") or []))),
            "sort_order": typed.get("sort_order") or 0,
            "enabled": bool(typed.get("enabled")),
        }
        others = tuple(str(label) for f, label in STALE_FIELDS.items() if saved[f] != mine[f])
        return cls(
            version=current.version, base=base if isinstance(base, int) else None, diff=tuple(diff), other_fields=others
        )


class SkillForm(ServiceForm):
    """Create or edit a skill (docs/design.md).

    ``skill`` is the live skill being edited (``None`` to create). A valid form gives the
    arguments of ``services.skill_create`` / ``services.skill_update`` (``service_arguments()``);
    the view calls the service and hands a refusal back (``add_service_errors``: a ``skill_stale``
    one keeps the typed text and moves ``base_version`` on, ``self.stale``). With ``preview=True``
    it validates with ``domain.clean_skill`` and keeps an unsaved ``domain.Skill`` in
    ``self.draft``. ``base_version`` refuses a save made from a stale page (someone else saved the
    skill meanwhile).
    """

    skill_code = forms.CharField(
        label=_("Skill code"),
        max_length=SKILL_CODE_MAX_LENGTH,
        required=False,
        help_text=_(
            "Lowercase letter first, then lowercase letters, digits, single _ or -; 2–64 characters. "
            "Cannot be changed after creation."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false", "class": "mono"}),
    )
    # No max_length on name and description: a browser would cut the text at ``maxlength`` without a
    # word; the domain refuses an over-long value with a message naming its length instead.
    name = forms.CharField(label=_("Name"), required=False)
    description = forms.CharField(
        label=_("Description"),
        required=False,
        help_text=_("One line, shown to the model in the skill catalog: say when to load this manual."),
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    content = forms.CharField(
        label=_("Manual (markdown)"),
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 22, "class": "mono", "spellcheck": "false"}),
    )
    tool_ids = AnyValueMultipleChoiceField(label=_("Gated tools"), required=False)
    sort_order = forms.IntegerField(label=_("Sort order"), initial=0, required=False)
    enabled = forms.BooleanField(label=_("Enabled"), required=False, initial=True)
    base_version = forms.IntegerField(required=False, widget=forms.HiddenInput)
    # What the page showed for the two fields that change without a new version (docs/roles.md):
    # a save sends them only when the user changed them, so a skill enabled, disabled or
    # reordered by someone else meanwhile keeps that change.
    base_enabled = forms.CharField(required=False, widget=forms.HiddenInput)
    base_sort_order = forms.IntegerField(required=False, widget=forms.HiddenInput)

    def __init__(
        self, *args: Any, skill: Skill | None = None, user: Any = None, preview: bool = False, **kwargs: Any
    ) -> None:
        self.skill = skill
        self.user = user
        self.preview = preview
        self.draft: dom.Skill | None = None
        self.stale: StaleEdit | None = None
        if skill is not None and "initial" not in kwargs:
            kwargs["initial"] = {
                "skill_code": skill.skill_code,
                "name": skill.name,
                "description": skill.description,
                "content": skill.content,
                "tool_ids": list(skill.tool_ids),
                "sort_order": skill.sort_order,
                "enabled": skill.enabled,
                "base_version": skill.version,
                "base_enabled": "1" if skill.enabled else "0",
                "base_sort_order": skill.sort_order,
            }
        super().__init__(*args, **kwargs)
        if skill is not None:
            self.fields["skill_code"].disabled = True

    def _clean_preview(self, data: dict[str, Any]) -> dict[str, Any]:
        """Build the unsaved ``self.draft`` from whatever was typed (so the preview follows the
        typing even while a field is still invalid), then report what a save would refuse."""
        code = self.skill.skill_code if self.skill else (self.data.get(self.add_prefix("skill_code")) or "").strip()
        sort_order = data.get("sort_order")
        self.draft = dom.Skill(
            code=code,
            name=(self.data.get(self.add_prefix("name")) or "").strip(),
            description=(self.data.get(self.add_prefix("description")) or "").strip(),
            content=normalize_newlines(self.data.get(self.add_prefix("content")) or ""),
            tool_ids=normalize_tool_ids(self.selected_tool_ids()),
            sort_order=sort_order if isinstance(sort_order, int) else 0,
            enabled=bool(data.get("enabled")),
            version=(self.skill.version + 1) if self.skill else 1,
        )
        try:
            clean_skill(
                skill_code=code or "draft",
                name=self.draft.name,
                description=self.draft.description,
                content=self.draft.content,
                tool_ids=self.draft.tool_ids,
                registry=selectors.tool_registry(self.draft.tool_ids),
            )
        except SkillValidationError as exc:
            for field, problems in exc.problems.items():
                if field == "skill_code" and not code:
                    continue
                for problem in problems:
                    self.add_error(field if field in self.fields else None, translate_error(problem))
        if self.skill is None:
            if not code:
                self.add_error("skill_code", str(MESSAGES_BY_CODE["skill_code_required"]))
            elif selectors.skill_get(code=code) is not None:
                self.add_error("skill_code", str(MESSAGES_BY_CODE["skill_code_taken"]) % {"code": code})
        return data

    # What the picker shows: the bound selection (even an invalid one) or the initial one.
    def selected_tool_ids(self) -> list[str]:
        if self.is_bound:
            return list(self.data.getlist(self.add_prefix("tool_ids")))
        return list(self.initial.get("tool_ids") or [])

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        hidden = [name for name in ("base_version", "base_enabled", "base_sort_order") if name in self._errors]
        for name in hidden:  # a hidden field's own message ("Enter a whole number.") would show nowhere
            del self._errors[name]
        if hidden:
            self.add_error(None, str(MESSAGES_BY_CODE["base_version_required"]))
        if self.preview:
            return self._clean_preview(data)
        if self.errors:
            return data
        if self.skill is not None and data.get("base_version") is None:
            # without it a save would overwrite whatever was saved meanwhile, unchecked
            self.add_error(None, str(MESSAGES_BY_CODE["base_version_required"]))
        return data

    def _typed(self) -> dict[str, Any]:
        """The editable fields as typed (valid form)."""
        data = self.cleaned_data
        return {
            "name": data.get("name") or "",
            "description": data.get("description") or "",
            "content": data.get("content") or "",
            "tool_ids": data.get("tool_ids") or [],
            "sort_order": data.get("sort_order") if data.get("sort_order") is not None else 0,
            "enabled": bool(data.get("enabled")),
        }

    def service_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``services.skill_create`` (``skill_code`` and the fields) or,
        editing, of ``services.skill_update`` (``skill``, ``expected_version`` and the fields the
        user changed: ``enabled`` and ``sort_order`` only when they differ from what the page
        showed, so a change made meanwhile by someone else stays). ``user`` is the form's."""
        data = self.cleaned_data
        fields = self._typed()
        if self.skill is None:
            return {"skill_code": (data.get("skill_code") or "").strip(), "user": self.user, **fields}
        if data.get("base_enabled") in ("0", "1") and fields["enabled"] == (data["base_enabled"] == "1"):
            del fields["enabled"]  # untouched: keep whatever the skill holds now
        if data.get("base_sort_order") is not None and fields["sort_order"] == data["base_sort_order"]:
            del fields["sort_order"]
        return {"skill": self.skill, "user": self.user, "expected_version": data.get("base_version"), **fields}

    def add_service_errors(self, exc: ValidationError) -> None:
        """A refusal of the save on the fields; a stale save (``skill_stale``) is reported as
        ``_refuse_stale`` says."""
        stale = next((e for _f, e in iter_errors(exc) if getattr(e, "code", None) == "skill_stale"), None)
        if stale is not None and self.skill is not None:
            self._refuse_stale(stale, self._typed())
        else:
            super().add_service_errors(exc)

    def _refuse_stale(self, error: ValidationError, typed: dict[str, Any]) -> None:
        """Someone saved the skill while this page was open (``skill_stale``): keep every typed
        value, move the hidden ``base_version`` to the version now saved — so saving again
        knowingly overwrites it — and keep that version in ``self.stale`` for the page (its
        version, the manual diff, the other fields that differ)."""
        current = selectors.skill_get(code=self.skill.skill_code)
        if current is None:  # deleted meanwhile: nothing left to overwrite
            self.add_error(None, str(MESSAGES_BY_CODE["skill_deleted"]) % {"code": self.skill.skill_code})
            return
        params = dict(error.params or {})
        params["current"] = current.version
        self.data = self.data.copy()
        self.data[self.add_prefix("base_version")] = str(current.version)
        self.stale = StaleEdit.build(current, base=params.get("base"), typed=typed)
        self.add_error(None, str(MESSAGES_BY_CODE["skill_stale"]) % params)


# --------------------------------------------------------------------------------------------
# Access profiles and stages
# --------------------------------------------------------------------------------------------
RESTRICTION_KINDS = {"profile": _("access profile"), "stage": _("stage")}


class RestrictionForm(ServiceForm):
    """Create or replace an access profile or a stage (``kind`` = ``profile`` | ``stage``): a valid
    form gives the arguments of ``services.access_profile_save`` / ``services.stage_save``, whose
    error names each tool that is not a registered MCP tool."""

    name = forms.CharField(
        label=_("Name"),
        max_length=NAME_MAX_LENGTH,
        validators=[NAME_RULE],
        help_text=_("Lowercase letters, digits, single _ or -."),
        widget=forms.TextInput(attrs={"class": "mono", "autocomplete": "off"}),
    )
    description = forms.CharField(label=_("Description"), max_length=DESCRIPTION_MAX_LENGTH, required=False)
    tools = AnyValueMultipleChoiceField(label=_("Allowed MCP tools"), required=False)

    def __init__(self, *args: Any, kind: str, obj: Any = None, existing: Iterable[str] = (), **kwargs: Any) -> None:
        self.kind = kind
        self.obj = obj
        self.existing = set(existing)
        if obj is not None and "initial" not in kwargs:
            kwargs["initial"] = {"name": obj.name, "description": obj.description, "tools": list(obj.tools)}
        super().__init__(*args, **kwargs)
        if obj is not None:
            self.fields["name"].disabled = True

    def selected_tools(self) -> list[str]:
        if self.is_bound:
            return list(self.data.getlist(self.add_prefix("tools")))
        return list(self.initial.get("tools") or [])

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        name = data["name"].strip()
        if self.obj is None and name in self.existing:
            self.add_error("name", str(MESSAGES_BY_CODE["restriction_name_taken"]) % {"name": name})
        return data

    def service_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``services.access_profile_save`` / ``services.stage_save``
        (valid form); a new one is created (``create``), never replacing one."""
        data = self.cleaned_data
        return {
            "name": data["name"].strip(),
            "description": data.get("description") or "",
            "tools": data.get("tools") or [],
            "create": self.obj is None,
        }


class IntentNodeForm(ServiceForm):
    """Create or edit an intent node: a valid form gives the arguments of
    ``services.intent_node_save``; an MCP node binds a synced tool (``tool``: its model-facing
    name). ``force`` breaks the skills gating the node's tool instead of refusing (docs/mcp.md,
    "Nodes")."""

    name_unknown_fields = False

    intent_code = forms.CharField(
        label=_("Intent code"), max_length=64, widget=forms.TextInput(attrs={"class": "mono", "autocomplete": "off"})
    )
    name = forms.CharField(label=_("Name"), max_length=NAME_MAX_LENGTH)
    parent = forms.ChoiceField(label=_("Parent"), required=False)
    kind = forms.ChoiceField(
        label=_("Kind"), choices=(("SYSTEM", _("system")), ("KB", _("knowledge base")), ("MCP", _("MCP tool")))
    )
    mcp_tool_id = forms.ChoiceField(label=_("MCP tool"), required=False)
    require_confirm = forms.BooleanField(
        label=_("Require confirmation (tools without a synced definition)"), required=False
    )
    description = forms.CharField(
        label=_("Description"), max_length=512, required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    sort_order = forms.IntegerField(label=_("Sort order"), initial=0)
    enabled = forms.BooleanField(label=_("Enabled"), required=False, initial=True)
    force = forms.BooleanField(label=_("Force: break the skills that gate this node's tool"), required=False)

    def __init__(
        self, *args: Any, instance: Any = None, parents: Iterable[Any] = (), tools: Iterable[Any] = (), **kwargs: Any
    ) -> None:
        self.instance = instance
        if instance is not None and "initial" not in kwargs:
            kwargs["initial"] = {
                "intent_code": instance.intent_code,
                "name": instance.name,
                "parent": instance.parent.intent_code if instance.parent_id else "",
                "kind": instance.kind,
                "mcp_tool_id": instance.mcp_tool_id,
                "require_confirm": instance.require_confirm,
                "description": instance.description,
                "sort_order": instance.sort_order,
                "enabled": instance.enabled,
            }
        super().__init__(*args, **kwargs)
        self.parents = {p.intent_code: p for p in parents}
        self.fields["parent"].choices = [("", "—")] + [(c, f"{p.name} ({c})") for c, p in self.parents.items()]
        choices = [("", "—")]
        current = instance.mcp_tool_id if instance is not None else ""
        names = set()
        for t in tools:
            names.add(t.name)
            label = t.name if t.real_name == t.name else f"{t.name} ← {t.real_name}"
            server = t.mcp_server.name if t.mcp_server_id else (t.server or gettext("no server"))
            state = "" if t.available else " · " + gettext("no longer offered")
            choices.append((t.name, f"{label} · {server}{state}"))
        if current and current not in names:
            choices.append((current, f"{current} · " + gettext("no definition")))
        self.fields["mcp_tool_id"].choices = choices
        if instance is not None:
            self.fields["intent_code"].disabled = True

    def service_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``services.intent_node_save`` (valid form)."""
        data = self.cleaned_data
        return dict(
            intent_code=(self.instance.intent_code if self.instance else data["intent_code"].strip()),
            name=data["name"],
            kind=data["kind"],
            parent=self.parents.get(data.get("parent") or ""),
            mcp_tool_id=data.get("mcp_tool_id") or "",
            require_confirm=bool(data.get("require_confirm")),
            description=data.get("description") or "",
            examples=self.instance.examples if self.instance else [],
            sort_order=data.get("sort_order") or 0,
            enabled=bool(data.get("enabled")),
            force=bool(data.get("force")),
        )
