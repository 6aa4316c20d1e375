"""A real browser against pytest-django's live server: Debian's Chromium driven by Playwright
(sync API). Never downloads a browser; fails (never skips) when /usr/bin/chromium is absent, so a
missing install cannot pass CI unnoticed — `make test` installs it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; the ORM calls of the fixtures are safe.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = Path("/tmp/shots")
USERNAME, PASSWORD = "ops", "ops-pass-123"


@pytest.fixture(scope="module")
def browser():
    """One Chromium per test file: Playwright's sync API keeps an asyncio loop running in this
    thread while it is open, and a later test in the same worker that calls ``anyio.run`` (the MCP
    sync) would find it; closing it with the file keeps the loops apart."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is not installed: run `make chromium` (Debian's chromium package)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def console(live_server, transactional_db, django_user_model):
    """The live server's URL with the bitmall demo loaded and a publisher (``ops``)."""
    from skills_app.catalog.demo import demo_load
    from skills_app.core.roles import assign

    demo_load(name="bitmall")
    assign(django_user_model.objects.create_user(username=USERNAME, password=PASSWORD), "publisher")
    return live_server.url


#: Reports every ``securitypolicyviolation`` event of a page to the test (``watch_csp``).
CSP_LISTENER = """document.addEventListener("securitypolicyviolation", (e) => window.__cspViolation({
    directive: e.effectiveDirective, blocked: e.blockedURI, source: e.sourceFile, line: e.lineNumber,
    sample: e.sample, page: location.href}));"""


def watch_csp(context) -> list[dict]:
    """The Content-Security-Policy violations of every page of ``context`` (each navigation
    included), and the console's "Refused to …" lines, as they happen."""
    seen: list[dict] = []
    context.expose_binding("__cspViolation", lambda source, violation: seen.append(violation))
    context.add_init_script(CSP_LISTENER)
    context.on(
        "console", lambda msg: seen.append({"console": msg.text}) if "Content Security Policy" in msg.text else None
    )
    return seen


@pytest.fixture
def page(browser):
    """A page with the console's real Content-Security-Policy: a test whose pages (or whose
    ``wait_for_function`` strings: pass an arrow function, a bare expression is eval'd) break it fails."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="zh-CN")
    violations = watch_csp(context)
    pg = context.new_page()
    pg.set_default_timeout(10_000)
    pg.csp_violations = violations
    yield pg
    context.close()
    assert not violations, f"Content-Security-Policy violations: {violations}"


def login(page, base_url: str) -> None:
    """Log in through the login form, with the keyboard."""
    page.goto(f"{base_url}/accounts/login/")
    page.fill("#id_username", USERNAME)
    page.fill("#id_password", PASSWORD)
    page.press("#id_password", "Enter")
    page.wait_for_url(f"{base_url}/skills/")
