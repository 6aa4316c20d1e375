"""Template helpers of the console: safe markdown, verdict/state labels, small lookups."""
from __future__ import annotations

import re
from typing import Any

import markdown as md
import nh3
from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy as _

register = template.Library()

#: Labels of the guard's verdicts and reasons and of the matrix states (DESIGN §3, §5).
VERDICT_LABELS = {"allowed": _("allowed"), "refused": _("refused"), "confirm": _("needs confirmation")}
REASON_LABELS = {
    "masked": _("masked"),
    "unknown_tool": _("unknown tool"),
    "unknown_skill": _("unknown skill"),
    "not_permitted": _("not permitted by the access profile"),
    "stage": _("not allowed in this stage"),
    "invalid_arguments": _("invalid arguments"),
}
STATE_LABELS = {"masked": _("masked"), "released": _("released"), "open": _("open")}


_LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])\s+\S")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def _separate_lists(text: str) -> str:
    """Insert the blank line Python-Markdown needs before a list that directly follows a
    paragraph line (manuals are written the CommonMark/GitHub way). Code fences are left alone."""
    out: list[str] = []
    fence = None
    prev = ""
    for line in text.replace("\r\n", "\n").split("\n"):
        m = _FENCE.match(line)
        if m:
            fence = None if fence == m.group(1) else (fence or m.group(1))
        elif fence is None and _LIST_ITEM.match(line) and prev.strip() and not _LIST_ITEM.match(prev) \
                and not prev.startswith((" ", "\t")):
            out.append("")
        out.append(line)
        prev = line
    return "\n".join(out)


def render_markdown(text: str) -> SafeString:
    """Markdown → HTML sanitized with nh3 (scripts, event handlers and unsafe URLs removed).

    Tables, fenced code and lists that follow a paragraph line without a blank line render as
    they do on GitHub."""
    html = md.markdown(_separate_lists(text or ""), extensions=["extra", "sane_lists"], output_format="html")
    return mark_safe(nh3.clean(html))  # noqa: S308 — nh3 output is sanitized


@register.filter(name="markdown")
def markdown_filter(text: str) -> SafeString:
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


#: url_name → nav section, for the "current page" mark in the top bar.
NAV_SECTIONS = {
    "home": "skills", "skill_list": "skills", "skill_detail": "skills", "skill_create": "skills",
    "skill_edit": "skills", "preview": "preview", "scenario_list": "scenarios", "scenario_create": "scenarios",
    "scenario_edit": "scenarios", "restriction_list": "restrictions", "restriction_create": "restrictions",
    "restriction_edit": "restrictions", "tool_tree": "tools",
}


@register.simple_tag(takes_context=True)
def nav_section(context: template.Context) -> str:
    """The top-bar section of the current page (``skills``, ``preview``, …) or ``""``."""
    request = context.get("request")
    match = getattr(request, "resolver_match", None)
    return NAV_SECTIONS.get(getattr(match, "url_name", None) or "", "")
