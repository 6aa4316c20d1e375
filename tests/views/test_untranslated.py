"""The Chinese and English crawls of every page find no untranslated text (issue 29, done-when).

Every GET page of the console (``tests/pages.py``: the URL map's pages, its htmx fragments a GET
reaches, the error pages, the login page logged out, the editor's live preview) is fetched with the
Django test client in both languages (the ``django_language`` cookie), against the bitmall demo
with three releases, a synced MCP server, a scenario run, a deleted skill, a draft change and an API
key. Of each page, the text people see is read: text nodes outside ``<script>``, ``<style>`` and the
elements that show data or code (``<code>``, ``<pre>``, ``<kbd>``, ``<samp>``, a ``<textarea>``'s
value), outside ``translate="no"`` (what users wrote: skill names, descriptions, manuals, tool
descriptions …) and outside an element in another language (``lang``: the language switch); and the
attributes people see or hear (``title``, ``placeholder``, ``aria-label``, ``alt``, a button input's
``value``, and ``data-confirm`` / ``data-scroll-hint``, which console.js shows).

What users wrote (or the MCP server sent) is no untranslated text in either language: it is
marked ``translate="no"`` where the templates show it on its own, and the rest is recognised by the
strings the database holds (``UserContent``: a name or code as a word of its own, a text or a
piece of one).

- Chinese: no run of two English words, and no text that is English words only
  (``english_runs``; ``ALLOWED`` names excepted), and no msgid of ``django.po`` that has another
  msgstr shown verbatim (a translation not applied). The runtime API's reference page
  (``/api/v1/docs``) is crawled too: Swagger UI is English, but the page's own bar back to the
  console is in the reader's language (the rest of the API speaks English, ``ApiInEnglishMiddleware``).
- English: no Chinese character, and no msgstr shown verbatim.

The site is crawled three times: as ``make run`` leaves it, after the demo MCP server changed (a
removed tool, a broken skill, a refused publish), and after syncs that warn and fail (every kind of
the console's own sync messages: ``servers_failing``, with the pages that show them). A failure
lists each finding as ``language URL [who]: <element>: "text"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pytest
from django.conf import settings

from tests.pages import EXTRA, FRAGMENTS, PAGES, demo_with_releases, unnamed_url_names
from tests.views.html import Node, parse

PO = Path(settings.BASE_DIR) / "skills_app" / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"

#: Elements whose text is data or code, not wording: never translated.
DATA_TAGS = {"script", "style", "code", "pre", "kbd", "samp", "textarea", "template"}
#: Attributes people see (a tooltip, a placeholder, a button's label) or hear (a screen reader);
#: the last two are shown by console.js (a confirmation, the hint above a table wider than the screen).
SHOWN_ATTRIBUTES = ("title", "placeholder", "aria-label", "alt", "data-confirm", "data-scroll-hint")
BUTTON_INPUTS = {"submit", "button", "reset"}

#: Names that stay English on the Chinese pages, by design (each short and explained). A field term
#: shown alone (a heading ``inputSchema``, a JSON Schema type) is marked ``translate="no"`` instead.
ALLOWED = {
    # the product's name, and the formats and protocols it speaks
    "Skill Console",
    "MCP",
    "JSON",
    "YAML",
    "HTTP",
    "API",
    "URL",
    "Agent Skills",  # the skill folder format (SKILL.md) the importer reads, by its own name
    "streamable HTTP",  # MCP's transports, as the server records name them
    "Streamable HTTP",
    "stdio",
    "annotations",  # MCP's wire key, a field label the .po keeps English (msgstr "annotations")
    # model providers, and their APIs as the payload targets name them (skill_rule.providers)
    "OpenAI",
    "Anthropic",
    "Gemini",
    "OpenAI Chat Completions",
    "OpenAI Responses",
    "Anthropic Messages",
    "Gemini function calling",
    # what a runtime compares: the hashes and the HTTP header of the release page
    "sha256",
    "ETag",
}
#: Two or more English words in a row (letters only: ``query_order``, ``inputSchema``, ``v1``,
#: ``a/b`` are identifiers and break a run).
WORD = re.compile(r"^[A-Za-z][a-z]*(?:['’-][A-Za-z][a-z]*)*$")
PUNCTUATION = "()[]{}<>,.:;!?\"'“”‘’…«»*"
NUMBER = re.compile(r"^[+-]?\d[\d,.]*%?$")
#: Chinese characters and the full-width punctuation around them.
CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]")


@dataclass(frozen=True)
class Finding:
    language: str
    url: str
    where: str
    text: str

    def __str__(self) -> str:
        return f'{self.language} {self.url}: {self.where}: "{self.text}"'


# --- the .po file ---------------------------------------------------------------------------


def _po_entries(path: Path = PO) -> list[tuple[list[str], list[str]]]:
    """``(msgids, msgstrs)`` of every entry of ``path`` that is translated and not fuzzy (msgid and
    msgid_plural; every msgstr / msgstr[n]). A tiny reader of the format: entries are separated by
    blank lines, a keyword line starts a string, a quoted line continues it."""
    entries: list[tuple[list[str], list[str]]] = []
    for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        if any(line.startswith("#,") and "fuzzy" in line for line in lines):
            continue
        fields: dict[str, str] = {}
        key = ""
        for line in lines:
            if line.startswith("#"):
                continue
            if line.startswith('"'):
                fields[key] += _unquote(line)
            else:
                key, _, rest = line.partition(" ")
                fields[key] = _unquote(rest)
        ids = [fields[k] for k in ("msgid", "msgid_plural") if fields.get(k)]
        strs = [v for k, v in fields.items() if k.startswith("msgstr") and v]
        if ids and strs:
            entries.append((ids, strs))
    return entries


def _unquote(quoted: str) -> str:
    body = quoted.strip()[1:-1]
    return re.sub(r'\\(["\\nt])', lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def _normal(text: str) -> str:
    return " ".join(text.split())


def _placeholder_free(msg: str) -> bool:
    """A msgid that can appear verbatim: no ``%(x)s`` / ``%s`` / ``{{ x }}`` / markup in it."""
    return not re.search(r"%(\(\w+\))?[sd]|\{\{|<", msg)


@pytest.fixture(scope="module")
def translations() -> tuple[set[str], set[str]]:
    """(msgids with a different msgstr, their msgstrs), whitespace-normalised, of ``django.po``."""
    msgids, msgstrs = set(), set()
    for ids, strs in _po_entries():
        if set(strs) == set(ids):
            continue  # "JSON" → "JSON": the same in both languages
        msgids |= {_normal(m) for m in ids if _placeholder_free(m)}
        msgstrs |= {_normal(m) for m in strs if _placeholder_free(m)}
    return msgids, msgstrs


# --- what a page shows ----------------------------------------------------------------------


def shown_text(doc: Node, language: str) -> list[tuple[str, str]]:
    """``(where, text)`` of every piece of text a person sees or hears on the page: text nodes and
    ``SHOWN_ATTRIBUTES`` (with a button input's value), outside ``translate="no"`` and elements in
    another language; text nodes outside ``DATA_TAGS`` too."""
    found: list[tuple[str, str]] = []

    def walk(node: Node, in_data: bool) -> None:
        for child in node.children:
            if isinstance(child, str):
                text = _normal(child)
                if text and not in_data:
                    found.append((_element(node), text))
                continue
            if child.get("translate") == "no":
                continue
            lang = child.get("lang")
            if lang is not None and child.tag != "html" and not _same_language(lang, language):
                continue
            for attr in SHOWN_ATTRIBUTES:
                if _normal(child.get(attr) or ""):
                    found.append((f"{_element(child)} {attr}", _normal(child[attr])))
            if child.tag == "input" and child.get("type") in BUTTON_INPUTS and _normal(child.get("value") or ""):
                found.append((f"{_element(child)} value", _normal(child["value"])))
            walk(child, in_data or child.tag in DATA_TAGS or (child.tag == "meta"))

    walk(doc, False)
    return found


def _element(node: Node) -> str:
    """The element as a report names it: its tag, id, class and data- attributes."""
    attrs = [f'{k}="{v}"' if v else k for k, v in node.attrs.items() if k in ("id", "class") or k.startswith("data-")]
    return f"<{' '.join([node.tag, *attrs])[:120]}>"


def _same_language(lang: str, language: str) -> bool:
    return lang.lower().split("-")[0] == language.lower().split("-")[0]


def english_runs(text: str) -> list[str]:
    """Runs of two or more English words in ``text``, or its English words when it has no Chinese at
    all. ``ALLOWED`` names and numbers are no words and do not end a run; an identifier
    (``query_order``, ``inputSchema``, ``v1``, ``a/b``) or Chinese text ends one."""
    for name in sorted((n for n in ALLOWED if " " in n), key=len, reverse=True):
        text = text.replace(name, " ")
    runs: list[str] = []
    alone: list[str] = []
    for segment in CJK.split(text):
        words: list[str] = []
        for raw in re.sub(r"[^\x00-\x7f]", " ", segment).split():
            token = raw.strip(PUNCTUATION)
            if WORD.match(token) and token not in ALLOWED:
                words.append(token)
                alone.append(token)
            elif not token or token in ALLOWED or NUMBER.match(token) or not re.search(r"[A-Za-z]", token):
                continue
            else:
                runs += [" ".join(words)] if len(words) >= 2 else []
                words = []
        runs += [" ".join(words)] if len(words) >= 2 else []
    if not runs and alone and not CJK.search(text):
        runs.append(" ".join(alone))
    return runs


# --- the site crawled -----------------------------------------------------------------------


#: The shortest text without Chinese that is read as a piece of what a user wrote.
PIECE = 12


@dataclass(frozen=True)
class UserContent:
    """What users wrote (or an MCP server sent), read from the database: ``texts`` (names,
    descriptions, manuals line by line, tool descriptions, scenario scripts, release notes) and
    ``names`` (codes and names: a skill code, a scenario, a server, a user …). A page shows them as
    they are, in either language: the demo catalog is Chinese, a code is an identifier."""

    texts: tuple[str, ...]
    names: frozenset[str]

    def without(self, text: str) -> str:
        """``text`` without what users wrote: empty when it is a name or a piece of a text (a line
        of a manual, a cut description); else with every text and name in it taken out (``订单
        (orders)``, ``cancel_order · bitmall``) — an English one only as words of their own, never
        from inside an identifier (the enum value ``app`` stays in ``after_sale_apply``)."""
        if text in self.names or text in self.texts:
            return ""
        piece = text.rstrip(".…")
        if (len(piece) >= PIECE or CJK.search(piece)) and any(piece in t for t in self.texts):
            return ""  # a short English word is no piece of a text: "version" is in many a manual
        return self._pattern.sub(" ", text)

    @cached_property
    def _pattern(self) -> re.Pattern:
        edge = "A-Za-z0-9_"

        def alone(s: str) -> str:
            before = rf"(?<![{edge}-])" if re.match(rf"[{edge}]", s) else ""
            after = rf"(?![{edge}-])" if re.match(rf"[{edge}]", s[-1]) else ""
            return before + re.escape(s) + after

        every = sorted({*self.texts, *self.names}, key=len, reverse=True)
        return re.compile("|".join(alone(s) for s in every if len(s) > 1))


def user_content() -> UserContent:
    from django.contrib.auth import get_user_model

    from skills_app.models import (
        AccessProfile,
        BuiltinTool,
        ConsoleSettings,
        IntentNode,
        McpServer,
        McpTool,
        Release,
        ReleaseLabel,
        RuntimeKey,
        Scenario,
        Skill,
        Stage,
    )

    texts: list[str] = []
    names: list[str] = [ConsoleSettings.current().catalog_name]
    for skill in Skill.objects.all():  # the deleted ones too
        texts += [skill.name, skill.description, *skill.content.splitlines()]
        names.append(skill.skill_code)
    for node in IntentNode.objects.all():
        texts += [node.name, node.description, *node.examples]
        names += [node.intent_code, node.mcp_tool_id]
    for tool in McpTool.objects.all():
        texts += [tool.title, *tool.description.splitlines(), *_schema_texts(tool.input_schema)]
        names += [tool.name, tool.tool_name, tool.server]
    for tool in BuiltinTool.objects.all():
        texts += tool.description.splitlines()
        names.append(tool.name)
    for model in (AccessProfile, Stage):
        for restriction in model.objects.all():
            texts.append(restriction.description)
            names.append(restriction.name)
    for release in Release.objects.all():
        texts += [release.note, release.override_note]
    for scenario in Scenario.objects.all():
        texts += [scenario.description, scenario.description_en, *scenario.script.splitlines()]
        names += [scenario.name, scenario.catalog]
    texts += ConsoleSettings.current().load_skill_header.splitlines()
    names += [s.name for s in McpServer.objects.all()]
    names += [label.name for label in ReleaseLabel.objects.all()]
    names += [key.name for key in RuntimeKey.objects.all()]
    names += [u.get_username() for u in get_user_model().objects.all()]
    return UserContent(
        texts=tuple(sorted({_normal(t) for t in texts if _normal(t)}, key=len, reverse=True)),
        names=frozenset(n for n in names if n),
    )


def _schema_texts(schema) -> list[str]:
    """The descriptions, titles and enum values of an inputSchema (what the server wrote)."""
    found: list[str] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("description", "title") and isinstance(value, str):
                found.append(value)
            elif key == "enum" and isinstance(value, list):
                found += [str(v) for v in value]
            else:
                found += _schema_texts(value)
    elif isinstance(schema, list):
        for item in schema:
            found += _schema_texts(item)
    return found


@pytest.fixture
def site(bitmall, django_user_model):
    """The demo with three releases and a synced MCP server (``demo_with_releases``), plus what
    makes the other pages show their content: a draft change after release 3 (a description, a
    deleted skill), an API key, the scenario run against the draft; a viewer and a user with no role."""
    from skills_app.catalog import selectors, services
    from skills_app.core.roles import assign
    from skills_app.keys.services import api_key_create
    from skills_app.models import Scenario, Skill
    from skills_app.releases.services import COMMAND_LINE
    from skills_app.simulation import results

    admin = demo_with_releases(django_user_model)
    checkout = Skill.objects.get(skill_code="order_checkout")
    services.skill_update(skill=checkout, description=checkout.description + "（草稿）", user=admin)
    services.skill_delete(skill=Skill.objects.get(skill_code="iot_bundle"), user=admin)
    api_key_create(user=COMMAND_LINE, name="runtime-1")
    draft = selectors.catalog_draft()
    for scenario in Scenario.objects.all():
        results.scenario_result(scenario, draft)
    viewer = django_user_model.objects.create_user(username="viewer", password="viewer-pass-123")
    assign(viewer, "viewer")
    nobody = django_user_model.objects.create_user(username="nobody", password="nobody-pass-123")
    return {"admin": admin, "viewer": viewer, "nobody": nobody}


@dataclass(frozen=True)
class Visit:
    """One request of the crawl: who (``admin``, ``viewer``, ``nobody`` or ``None``: logged out),
    the method, the URL, the form sent, htmx or not, and the status it answers."""

    who: str | None
    url: str
    status: int = 200
    method: str = "get"
    data: dict | None = None
    htmx: bool = False


def visits(sync_record: int, extra: tuple[str, ...] = ()) -> list[Visit]:
    """Every page of ``tests/pages.py`` and the fragments a GET reaches, as the administrator;
    the error pages; the 403s of a role too low and of no role; the login page and the
    "session ended" fragments, logged out; the editor's live preview (a POST fragment); and the
    ``extra`` pages of a state (as the administrator)."""
    from skills_app.models import Skill

    pages = [Visit("admin", url) for url in PAGES.values() if url]
    pages += [Visit("admin", url, htmx="?record=" in url) for url in extra]
    pages += [Visit("admin", url, htmx=True) for url in FRAGMENTS.values()]
    pages += [Visit("admin", f"/mcp/bitmall/syncs?record={sync_record}", htmx=True)]  # a sync's card
    pages += [Visit("admin", url, status=404) for url in EXTRA if not url.startswith("/api/")]
    pages += [Visit("admin", url) for url in EXTRA if url.startswith("/api/")]
    live = Skill.objects.get(skill_code="order_change")
    skill = {
        "skill_code": live.skill_code,
        "name": live.name,
        "description": live.description,
        "content": live.content,
        "tool_ids": live.tool_ids,
    }
    pages += [
        Visit("admin", "/skills/order_change/preview", method="post", data=skill, htmx=True),
        Visit("admin", "/skills/new-preview", method="post", data={**skill, "skill_code": "new_one"}, htmx=True),
        Visit("admin", "/releases/999/", status=404),  # a 404 naming its reason
        Visit("admin", "/skills/no_such_skill/", status=404),
        Visit("admin", "/releases/diff?from=1&to=999", status=404),
        Visit("admin", "/tools/options?name=nope", status=400, htmx=True),  # a 400 naming its reason
        Visit("viewer", "/skills/new", status=403),  # naming the role it takes
        Visit("viewer", "/skills/"),  # what a viewer may not do is not offered
        Visit("nobody", "/skills/", status=403),  # no role at all
        Visit(None, "/accounts/login/"),
        Visit(None, "/accounts/login/?next=/skills/"),
        Visit(None, "/tools/options?q=order", htmx=True),  # the session ended: the picker says so
        Visit(None, "/skills/order_change/preview", method="post", data=skill, htmx=True),
    ]
    return pages


def crawl(site, language: str, extra: tuple[str, ...] = ()) -> list[tuple[Visit, Node]]:
    """Every visit of ``visits`` (with the state's ``extra`` pages) in ``language`` (the
    ``django_language`` cookie), each answering its status and HTML: the visit and its parsed page."""
    from django.test import Client

    from skills_app.models import McpSyncRecord

    clients = {}
    for who in ("admin", "viewer", "nobody", None):
        c = Client()
        if who:
            c.force_login(site[who])
        c.cookies["django_language"] = language
        clients[who] = c
    record = McpSyncRecord.objects.order_by("-id").first()
    crawled = []
    for visit in visits(record.pk, extra):
        headers = {"HX-Request": "true"} if visit.htmx else {}
        response = getattr(clients[visit.who], visit.method)(visit.url, visit.data or {}, headers=headers)
        assert response.status_code == visit.status, (visit, response.status_code)
        assert response["Content-Type"].startswith("text/html"), visit
        crawled.append((visit, parse(response.content)))
    return crawled


def _where(visit: Visit) -> str:
    who = f"[{visit.who or 'logged out'}]"
    return f"{visit.method.upper()} {visit.url} {who}" if visit.method != "get" else f"{visit.url} {who}"


def chinese_findings(crawled, translations, users: UserContent) -> list[Finding]:
    msgids, _ = translations
    findings = []
    for visit, doc in crawled:
        for where, text in shown_text(doc, "zh-hans"):
            rest = users.without(text)
            if text in msgids and rest:
                findings.append(Finding("zh-hans", _where(visit), f"{where} msgid not translated", text))
            findings += [Finding("zh-hans", _where(visit), where, run) for run in english_runs(rest)]
    return findings


def english_findings(crawled, translations, users: UserContent) -> list[Finding]:
    _, msgstrs = translations
    findings = []
    for visit, doc in crawled:
        for where, text in shown_text(doc, "en"):
            if CJK.search(users.without(text)):
                findings.append(Finding("en", _where(visit), where, text))
            elif text in msgstrs and users.without(text):
                findings.append(Finding("en", _where(visit), f"{where} msgstr shown", text))
    return findings


def _report(findings: list[Finding]) -> str:
    unique = list(dict.fromkeys(str(f) for f in findings))
    return f"{len(unique)} untranslated:\n" + "\n".join(unique)


def test_every_page_is_crawled():
    """A URL pattern nobody names in tests/pages.py is a page nobody crawls."""
    assert unnamed_url_names() == set()


def server_changed(site) -> None:
    """The demo MCP server changes (its ``v2``: ``change_address`` gone, ``query_order``'s schema
    changed) and a superuser syncs it from the console: a removed tool, an unavailable node, a broken
    skill (``order_change``) the publish gate refuses, a second sync record."""
    from skills_app.mcp.sync import mcp_server_sync
    from skills_app.models import McpServer
    from tests.mcp.support import set_variant

    server = set_variant(McpServer.objects.get(name="bitmall"), "v2")
    assert mcp_server_sync(server=server, trigger="console", user=site["admin"]).outcome == "ok"


def servers_failing(site) -> tuple[str, ...]:
    """The console's own sync messages, every kind a sync records (issue 29): the demo server
    synced in its ``invalid`` (two refused entries), ``oversized`` (three past a bound), ``twice``
    (a name listed twice) and ``hints`` (doubtful annotations) variants, then ``die`` (a failure
    with the server's stderr); a second server ``shop`` listing the same tools (every one renamed
    around bitmall's), then a sync of it left running past its deadline (abandoned) and one while it
    is disabled; ``wide``, whose tools a provider refuses and one of whose definitions is invalid
    (written by ``_apply``, as a server listing them would); ``slow``, past its time limit. Returns
    the pages that show them besides ``tests/pages.py``'s."""
    from datetime import timedelta

    import mcp_types as types
    from django.utils import timezone

    from skills_app.mcp.services import mcp_server_save
    from skills_app.mcp.sync import _apply, _listed, demo_server_args, mcp_server_sync
    from skills_app.models import McpServer, McpSyncRecord
    from tests.mcp.support import set_variant, stdio_server

    admin = site["admin"]
    server = McpServer.objects.get(name="bitmall")
    for variant in ("invalid", "oversized", "twice", "hints"):
        server = set_variant(server, variant)
        record = mcp_server_sync(server=server, trigger="console", user=admin)
        assert (record.outcome, bool(record.warnings)) == ("ok", True), (variant, record.message)
    shop = stdio_server(name="shop")
    assert mcp_server_sync(server=shop, trigger="console", user=admin).warnings
    past = timezone.now() - timedelta(minutes=5)
    McpSyncRecord.objects.create(server=shop, outcome="running", started_at=past, deadline_at=past, trigger="cron")
    shop = mcp_server_save(
        name="shop", transport="stdio", command=shop.command, args=shop.args, enabled=False, instance=shop
    )
    assert mcp_server_sync(server=shop, trigger="console", user=admin).outcome == "failed"
    assert McpSyncRecord.objects.filter(server=shop, message__startswith="abandoned").exists()
    wide = mcp_server_save(name="wide", transport="stdio", command=shop.command)
    either = {"type": "object", "properties": {"tags": {"type": "array"}}, "anyOf": [{"required": ["tags"]}]}
    listed = [
        _listed(types.Tool(name="either", description="d" * 1100, input_schema=either)),
        _listed(types.Tool(name="loose", input_schema={"type": "object", "properties": {"n": {"type": "nope"}}})),
    ]
    assert len(_apply(wide, listed, McpSyncRecord.objects.create(server=wide, trigger="console")).warnings) == 3
    slow = mcp_server_save(
        name="slow", transport="stdio", command=shop.command, args=demo_server_args("hang"), timeout_seconds=1
    )
    assert mcp_server_sync(server=slow, trigger="console", user=admin).outcome == "failed"
    assert mcp_server_sync(server=set_variant(server, "die"), trigger="console", user=admin).outcome == "failed"
    shown = McpSyncRecord.objects.filter(server=shop).exclude(outcome="running").order_by("-id").first()
    return (
        "/mcp/shop/syncs",
        f"/mcp/shop/syncs?record={shown.pk}",
        "/mcp/wide/syncs",
        "/mcp/slow/syncs",
        "/tools/mcp/shop__query_order/",
        "/tools/mcp/either/",
        "/tools/mcp/loose/",
    )


#: The states the site is crawled in: as ``make run`` leaves it, after the demo server changed, and
#: after syncs that warn and fail (each a function of the site returning its extra pages).
STATES = pytest.mark.parametrize(
    "state",
    [
        lambda site: (),
        lambda site: server_changed(site) or (),
        servers_failing,
    ],
    ids=["as make run leaves it", "after the server changed", "after syncs that warn and fail"],
)


@STATES
def test_the_chinese_crawl_finds_no_untranslated_text(site, translations, state):
    extra = state(site)
    crawled = crawl(site, "zh-hans", extra)
    for visit, doc in crawled:
        if doc.by_tag("html") and not visit.url.startswith("/api/"):  # Swagger UI's page names no language
            assert doc.by_tag("html")[0]["lang"] == "zh-hans", visit
    findings = chinese_findings(crawled, translations, user_content())
    assert not findings, _report(findings)


@STATES
def test_the_english_crawl_finds_no_untranslated_text(site, translations, state):
    extra = state(site)
    crawled = crawl(site, "en", extra)
    for visit, doc in crawled:
        if doc.by_tag("html") and not visit.url.startswith("/api/"):  # Swagger UI's page names no language
            assert doc.by_tag("html")[0]["lang"] == "en", visit
    findings = english_findings(crawled, translations, user_content())
    assert not findings, _report(findings)
