"""Template helpers of the console: safe markdown, verdict/state labels, small lookups."""
from __future__ import annotations

import re
from typing import Any

import markdown as md
import nh3
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor
from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
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


class _ImagesAsLinks(Treeprocessor):
    """``![alt](src)`` becomes a plain link ``<a href="src">alt</a>``: a manual never makes the
    console fetch an image by itself (no tracking pixels); the reader may follow the link."""

    def run(self, root: Any) -> None:
        for el in root.iter("img"):
            src, alt = el.get("src", ""), el.get("alt", "")
            title, tail = el.get("title"), el.tail
            el.clear()  # drops src/alt/title (and the tail, put back below)
            el.tail = tail
            el.tag = "a"
            el.set("href", src)
            if title:
                el.set("title", title)
            el.text = alt or src


class _NoRawHtml(Extension):
    """Raw HTML in a manual is shown as text: the block and inline HTML passes of Python-Markdown
    are removed, so ``<style>`` or ``<b>`` come out escaped (``&lt;style&gt;``) and the markdown
    around them still renders; images become links."""

    def extendMarkdown(self, md_: md.Markdown) -> None:  # noqa: N802 — Python-Markdown's API
        md_.preprocessors.deregister("html_block")
        md_.inlinePatterns.deregister("html")
        md_.treeprocessors.register(_ImagesAsLinks(md_), "images_as_links", 1)


#: What nh3 keeps: its default tags minus ``img``; links only to http(s) and mailto (and relative).
ALLOWED_TAGS = frozenset(nh3.ALLOWED_TAGS) - {"img"}
URL_SCHEMES = frozenset({"http", "https", "mailto"})


def render_markdown(text: str) -> SafeString:
    """A skill manual (markdown) as safe HTML for the console.

    Decisions (manuals are markdown written for an LLM; they never need raw HTML):

    - **Raw HTML is escaped before it can act**, not sanitized after: Python-Markdown's raw-HTML
      passes are switched off (``_NoRawHtml``), so ``<script>``, ``<style>`` or any tag shows as
      literal text. An unclosed ``<style>`` therefore cannot swallow the rest of the manual (with
      raw HTML on, Python-Markdown passes everything after it through as one HTML block, which a
      sanitizer then has to drop whole).
    - **No images**: ``![alt](src)`` renders as a link ``<a href="src">alt</a>`` and ``img`` is not
      an allowed tag, so opening a manual fetches nothing (no tracking pixels).
    - The HTML is still cleaned with nh3 as a second line of defence: default tags minus ``img``;
      ``<script>``/``<style>`` removed *with their content* (``clean_content_tags``); link URLs
      limited to http, https, mailto and relative ones (``javascript:`` links lose their href).
    - Known limit, from the markdown parser and left as is: in ``[x](javascript:alert('a'))`` the
      parser reads ``'a'`` as a link title and ends the link at the first ``)``, so a stray ``)``
      follows the (href-less) link. ``[x](javascript:alert(1))`` renders without it.

    Tables, fenced code and lists that follow a paragraph line without a blank line render as
    they do on GitHub."""
    converter = md.Markdown(extensions=["extra", "sane_lists", _NoRawHtml()], output_format="html")
    html = converter.convert(_separate_lists(text or ""))
    cleaned = nh3.clean(html, tags=set(ALLOWED_TAGS), clean_content_tags={"script", "style"},
                        url_schemes=set(URL_SCHEMES))
    return mark_safe(cleaned)  # noqa: S308 — nh3 output is sanitized


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
def localized_description(obj: Any) -> str:
    """A record's description in the active language (``description_for``), else its
    ``description``."""
    pick = getattr(obj, "description_for", None)
    if callable(pick):
        return pick(get_language())
    return getattr(obj, "description", "")


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
