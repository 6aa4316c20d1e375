"""Template helpers of the console: safe markdown, verdict/state labels, small lookups."""

from __future__ import annotations

import re
from collections.abc import Mapping
from html import escape
from typing import Any

import nh3
from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext_lazy as _
from markdown_it import MarkdownIt

from skills_app.core.message_catalog import (
    PAYLOAD_ACTION_LABELS,
    REASON_LABELS,
    STATE_LABELS,
    VERDICT_LABELS,
    release_note_text,
)

register = template.Library()

#: CommonMark with GitHub tables and strikethrough; raw HTML off (shown as text); images off.
_MARKDOWN = (
    MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    .enable(["table", "strikethrough"])
    .disable("image")
)

#: What nh3 keeps: its default tags minus ``img``; links only to http(s) and mailto (and relative).
ALLOWED_TAGS = frozenset(nh3.ALLOWED_TAGS) - {"img"}
URL_SCHEMES = frozenset({"http", "https", "mailto"})


def render_markdown(text: str) -> SafeString:
    """A skill manual (markdown) as safe HTML for the console.

    Decisions (manuals are markdown written for an LLM; they never need raw HTML):

    - **markdown-it-py** (CommonMark + GitHub tables) rather than Python-Markdown: Python-Markdown's
      inline parsing is quadratic on runs of ``[`` (4,000 took 2.7 s, 10,000 took 16 s in the live
      preview, which re-renders on every keystroke); markdown-it-py renders the same in ~0.1 s.
    - **Raw HTML is shown as text** (``html: False``): ``<script>``, ``<style>`` or any tag comes
      out escaped, so an unclosed ``<style>`` cannot swallow the rest of the manual.
    - **No images**: the image rule is off, so ``![alt](src)`` renders as ``!`` and a link to
      ``src``; ``img`` is not an allowed tag either. Opening a manual fetches nothing.
    - The HTML is still cleaned with nh3 as a second line of defence: default tags minus ``img``;
      ``<script>``/``<style>`` removed with their content; link URLs limited to http, https,
      mailto and relative ones (markdown-it-py itself refuses ``javascript:`` links).
    - **Links open in a new tab** (``target="_blank"``, ``rel="noopener noreferrer"``): a click in
      the live preview never leaves the editor and its unsaved text.
    """
    html = _MARKDOWN.render(text or "")
    cleaned = nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        clean_content_tags={"script", "style"},
        url_schemes=set(URL_SCHEMES),
        set_tag_attribute_values={"a": {"target": "_blank"}},
    )
    return mark_safe(cleaned)  # noqa: S308 — nh3 output is sanitized


@register.filter(name="markdown")
def markdown_filter(text: str) -> SafeString:
    """``{{ skill.content|markdown }}`` — see ``render_markdown``."""
    return render_markdown(text)


@register.filter
def verdict_label(value: str) -> str:
    return str(VERDICT_LABELS.get(value, value))


@register.filter
def reason_label(value: str | None) -> str:
    return str(REASON_LABELS.get(value, value or ""))


@register.filter
def state_label(value: str) -> str:
    return str(STATE_LABELS.get(value, value))


@register.filter
def payload_action_label(value: str) -> str:
    """``refused`` / ``over_budget`` / ``rewritten`` of a payload problem, translated."""
    return str(PAYLOAD_ACTION_LABELS.get(value, value))


@register.filter
def localized_description(obj: Any) -> str:
    """A record's description in the active language (``description_for``), else its
    ``description``."""
    pick = getattr(obj, "description_for", None)
    if callable(pick):
        return pick(get_language())
    return getattr(obj, "description", "")


@register.filter
def release_note(note: str) -> str:
    """A release's note in the active language (``message_catalog.release_note_text``)."""
    return release_note_text(note)


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    """``{{ mapping|get_item:key }}`` — dict lookup with a variable key (``None`` if absent)."""
    try:
        return mapping.get(key)
    except AttributeError:
        return None


@register.filter
def signed(value: int | None) -> str:
    """``+2`` / ``−1`` / ``±0`` for a count difference."""
    if value is None:
        return ""
    if value > 0:
        return f"+{value}"
    if value < 0:
        return f"−{-value}"
    return "±0"


@register.simple_tag
def fields_with_errors(form: Any) -> list[tuple[str, str, list[str]]]:
    """``(element id, label, messages)`` of every field of ``form`` with an error, in form order,
    for the error summary (each label links to its field)."""
    out = []
    for bf in form:
        if bf.errors:
            out.append((bf.auto_id or bf.html_name, str(bf.label or bf.name), [str(e) for e in bf.errors]))
    return out


#: url_name → nav section, for the "current page" mark in the top bar.
NAV_SECTIONS = {
    "home": "skills",
    "skill_list": "skills",
    "skill_detail": "skills",
    "skill_create": "skills",
    "skill_edit": "skills",
    "preview": "preview",
    "scenario_list": "scenarios",
    "scenario_create": "scenarios",
    "scenario_edit": "scenarios",
    "restriction_list": "restrictions",
    "restriction_create": "restrictions",
    "restriction_edit": "restrictions",
    "tool_tree": "tools",
    "release_list": "releases",
    "release_detail": "releases",
    "release_diff": "releases",
    "publish": "releases",
    "api_keys": "releases",
    "skill_history": "skills",
    "skill_revert": "skills",
    "audit": "audit",
    "skill_import": "skills",
    "mcp_server_list": "tools",
    "mcp_server_create": "tools",
    "mcp_server_edit": "tools",
    "mcp_sync_history": "tools",
    "mcp_tool_detail": "tools",
    "node_create": "tools",
    "node_edit": "tools",
    "insights": "insights",
    "fleet": "fleet",
}


@register.simple_tag(takes_context=True)
def nav_section(context: template.Context) -> str:
    """The top-bar section of the current page (``skills``, ``preview``, …) or ``""``."""
    request = context.get("request")
    match = getattr(request, "resolver_match", None)
    return NAV_SECTIONS.get(getattr(match, "url_name", None) or "", "")


@register.simple_tag
def broken_skills() -> dict:
    """``{% broken_skills as broken %}`` — live skill code → ``[(tool, reason)]`` for gated tools
    that are not registered (``selectors.broken_skills``, docs/mcp.md); a fixed number of queries."""
    from skills_app.catalog.selectors import broken_skills as select

    return select()


#: The characters ``html.escape`` replaces.
_HTML_SPECIAL = re.compile(r"[&<>\"']")

#: Chips a long list shows before the rest folds under "and N more" (a ``<details>``): the
#: editor's "Still masked" names every gated tool the skill does not release — ~2,000 in a
#: catalog of 2,000 MCP tools (docs/benchmarks.md).
CHIPS_SHOWN = 40


@register.simple_tag
def masked_chips(masked: Mapping[str, str], shown: int | None = None) -> SafeString:
    """``{% masked_chips effect.with_manual.masked %}`` — masked tool → the skill whose manual
    releases it, in the mapping's order, as ``<ul class="chips">`` of ``tool → skill`` chips; past
    ``shown`` tools (``CHIPS_SHOWN`` when ``None``) the rest follow in a closed
    ``<details data-chips-more="N">`` whose summary says "and N more". Built with one join (a
    template loop per chip cost ~15 ms at 2,000 tools); every name escaped. An empty mapping: one
    "none" item."""
    if not masked:
        return mark_safe('<ul class="chips"><li class="none">%s</li></ul>' % escape(str(_("none"))))  # noqa: S308
    shown = CHIPS_SHOWN if shown is None else shown
    items = masked.items()
    if _HTML_SPECIAL.search("".join(k + v for k, v in items)) is None:  # nothing to escape (tool names, codes)
        chips = ['<li class="chip chip-masked">%s <span class="to">→ %s</span></li>' % kv for kv in items]
    else:
        chips = [
            '<li class="chip chip-masked">%s <span class="to">→ %s</span></li>' % (escape(tool), escape(owner))
            for tool, owner in items
        ]
    html = '<ul class="chips">%s</ul>' % "".join(chips[:shown])
    more = len(chips) - shown
    if more > 0:
        summary = ngettext("and %(n)s more", "and %(n)s more", more) % {"n": more}
        html += (
            '<details class="chips-more" data-chips-more="%d"><summary>%s</summary><ul class="chips">%s</ul>'
            "</details>" % (more, escape(summary), "".join(chips[shown:]))
        )
    return mark_safe(html)  # noqa: S308 — every name is escaped above
