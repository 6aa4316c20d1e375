"""Django settings for the Skill Console project.

The embedded default is SQLite in ``var/db.sqlite3``; every setting that differs between a
developer laptop and a deployment is read from an environment variable named here.
"""

from __future__ import annotations

import os
import tempfile
from datetime import timedelta
from pathlib import Path
from zoneinfo import available_timezones

from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from skill_rule.limits import IMPORT_MAX_FILES, REPORTS_RETENTION_DAYS_DEFAULT
from skills_app.core.private import narrow_var, private_dir, private_file, write_private

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("SKILL_CONSOLE_VAR_DIR", BASE_DIR / "var"))
#: Owner only (docs/deploy.md, "Files under var/"): made 0700, or narrowed with what lies in it
#: when an older version, a hand or a tool left it wider, before anything is read from it.
narrow_var(VAR_DIR)


def _env_flag(name: str, default: bool = False) -> bool:
    """An on/off environment variable: ``1``, ``true``, ``yes``, ``on`` (any case) are on."""
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def _env_list(name: str, default: str = "") -> list[str]:
    """A comma-separated environment variable as a list (blank items dropped)."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def _secret_key() -> str:
    """``SKILL_CONSOLE_SECRET_KEY``, else a random key kept in ``var/secret_key`` (made once,
    created ``0600``; two processes starting at once keep the first one's key)."""
    if os.environ.get("SKILL_CONSOLE_SECRET_KEY"):
        return os.environ["SKILL_CONSOLE_SECRET_KEY"]
    path = VAR_DIR / "secret_key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        import secrets

        key = secrets.token_urlsafe(50)
        try:
            write_private(path, key, exclusive=True)
        except FileExistsError:
            return path.read_text().strip()
        return key


SECRET_KEY = _secret_key()
#: Off unless asked for: debug pages show settings and tracebacks.
DEBUG = os.environ.get("SKILL_CONSOLE_DEBUG", "0") == "1"
ALLOWED_HOSTS = _env_list("SKILL_CONSOLE_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework_api_key",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "axes",
    "simple_history",
    "csp",
    "django_q",
    "skills_app",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",  # Content-Security-Policy on every response (below)
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "skills_app.core.faults.ApiInEnglishMiddleware",  # /api/ and /healthz answer in English (docs/runtime-api.md)
    # the time zone the user chose for the session, else TIME_ZONE (skills_app/core/zones.py)
    "skills_app.core.zones.TimeZoneMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # who made a change: the request's user on every historical record (docs/roles.md)
    "simple_history.middleware.HistoryRequestMiddleware",
    # A database that cannot be reached: 503 (the console's page, or JSON under /api/). Redis: skills_app/core/cache.py.
    "skills_app.core.faults.DependencyFaultMiddleware",
    "skills_app.core.faults.RefuseNulMiddleware",  # a NUL byte in a URL argument: 404 (PostgreSQL refuses NUL)
    "skills_app.core.faults.RefuseInvalidUtf8Middleware",  # a form field that is not UTF-8: 400, never saved as U+FFFD
    # Login throttling (django-axes): keep it last, it turns a lockout into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "console.urls"

#: Content-Security-Policy (django-csp) on every response: scripts, styles, images, fetches and
#: form posts from the console's own origin only — no inline script, event handler or ``style=``
#: attribute, no eval (htmx is configured without either, templates/base.html), no plugins, never
#: framed. Images may also be ``data:`` URLs (the favicon, the admin's icons). The one exception is
#: the Swagger UI page, ``/api/v1/docs`` (skills_app/runtime/urls.py): its inline start-up script and
#: style carry this request's nonce.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "skills_app.core.roles.context_processor",
                "skills_app.core.zones.context_processor",
            ],
        },
    },
]

WSGI_APPLICATION = "console.wsgi.application"

#: Seconds to wait for the database: PostgreSQL's ``connect_timeout`` (an unreachable server is a
#: quick 503, never a worker stuck until gunicorn kills it) and SQLite's wait for the write lock.
DB_CONNECT_TIMEOUT = int(os.environ.get("SKILL_CONSOLE_DB_CONNECT_TIMEOUT", "3"))
SQLITE_TIMEOUT = int(os.environ.get("SKILL_CONSOLE_SQLITE_TIMEOUT", "20"))

#: Seconds a database connection is kept for the next request (``SKILL_CONSOLE_CONN_MAX_AGE``,
#: default 60; 0 = a new connection per request), checked before reuse (``CONN_HEALTH_CHECKS``) so
#: a connection the server dropped is replaced instead of failing the request.
CONN_MAX_AGE = int(os.environ.get("SKILL_CONSOLE_CONN_MAX_AGE", "60"))

if os.environ.get("SKILL_CONSOLE_DB") == "postgres":
    _pg_options: dict = {"connect_timeout": DB_CONNECT_TIMEOUT}
    if os.environ.get("SKILL_CONSOLE_DB_STATEMENT_TIMEOUT"):  # milliseconds; a slow query is cut off
        _pg_options["options"] = f"-c statement_timeout={int(os.environ['SKILL_CONSOLE_DB_STATEMENT_TIMEOUT'])}"
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": os.environ.get("PGDATABASE", "test"),
            "USER": os.environ.get("PGUSER", "postgres"),
            "PASSWORD": os.environ.get("PGPASSWORD", ""),
            "HOST": os.environ.get("PGHOST", "127.0.0.1"),
            "PORT": os.environ.get("PGPORT", "5432"),
            "OPTIONS": _pg_options,
            "CONN_MAX_AGE": CONN_MAX_AGE,
            "CONN_HEALTH_CHECKS": True,
        }
    }
else:
    _sqlite_path = Path(os.environ.get("SKILL_CONSOLE_SQLITE", str(VAR_DIR / "db.sqlite3")))
    if _sqlite_path.parent == VAR_DIR:  # our own file: readable by its owner only from the start
        private_file(_sqlite_path)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(_sqlite_path),
            # Concurrent saves wait for the write lock instead of failing with "database is
            # locked": writers take it at BEGIN (IMMEDIATE), readers never block them (WAL).
            "OPTIONS": {
                "timeout": SQLITE_TIMEOUT,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
            "CONN_MAX_AGE": CONN_MAX_AGE,
            "CONN_HEALTH_CHECKS": True,
            # Tests run on a file too (not the shared-cache in-memory database, whose table locks
            # fail at once instead of waiting): concurrent publishes are tested with real threads.
            # One file per test process, so two test runs never share (and drop) one database.
            "TEST": {
                "NAME": os.environ.get("SKILL_CONSOLE_TEST_SQLITE")
                or os.path.join(tempfile.gettempdir(), f"skill-console-test-{os.getpid()}.sqlite3")
            },
        }
    }

#: ``SKILL_CONSOLE_REDIS_URL`` (``redis://host:6379/0``): the shared cache of every app process —
#: sessions (``cached_db``: the database stays the truth) and the release cache. Without it, a
#: local-memory cache per process (fine for one process: ``make run``). Redis that cannot be
#: reached answers as a miss after ``SKILL_CONSOLE_REDIS_TIMEOUT`` seconds (``skills_app.core.cache``).
REDIS_URL = os.environ.get("SKILL_CONSOLE_REDIS_URL", "").strip()
if REDIS_URL:
    _redis_timeout = float(os.environ.get("SKILL_CONSOLE_REDIS_TIMEOUT", "1"))
    CACHES = {
        "default": {
            "BACKEND": "skills_app.core.cache.ResilientRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("SKILL_CONSOLE_CACHE_PREFIX", "skill-console"),
            "OPTIONS": {"socket_connect_timeout": _redis_timeout, "socket_timeout": _redis_timeout},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "skill-console"}}
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

#: Background jobs (django-q2, docs/deploy.md "Background jobs"): the MCP syncs, the periodic
#: re-sync and the tools page's test call run in ``manage.py qcluster``, never in a web request.
#: The queue is the database (django-q2's ORM broker: SQLite or PostgreSQL, no extra server), or
#: Redis when ``SKILL_CONSOLE_REDIS_URL`` is set. A task is cut off after the longest time limit a
#: server may have (600 s, ``McpServer.clean``) plus ``SKILL_CONSOLE_TASK_MARGIN`` seconds; a sync
#: still "running" that long after it was asked is shown as abandoned (``McpSyncRecord.abandoned``).
SKILL_CONSOLE_TASK_MARGIN = float(os.environ.get("SKILL_CONSOLE_TASK_MARGIN", "60"))
#: Minutes between two re-syncs of every enabled MCP server by the task worker's scheduler; 0 (the
#: default) schedules none — cron or a systemd timer running ``sync_mcp`` does it (docs/mcp.md).
SKILL_CONSOLE_MCP_RESYNC_MINUTES = int(os.environ.get("SKILL_CONSOLE_MCP_RESYNC_MINUTES", "0"))
#: Run every task at once in the process that asks for it (django-q2's ``sync`` mode): the tests
#: and a console without a worker. Off: tasks wait for ``manage.py qcluster``.
SKILL_CONSOLE_TASKS_INLINE = _env_flag("SKILL_CONSOLE_TASKS_INLINE")
_TASK_TIMEOUT = int(600 + SKILL_CONSOLE_TASK_MARGIN)
Q_CLUSTER = {
    "name": os.environ.get("SKILL_CONSOLE_CACHE_PREFIX", "skill-console"),
    "workers": int(os.environ.get("SKILL_CONSOLE_TASK_WORKERS", "2")),
    "timeout": _TASK_TIMEOUT,
    # the ORM broker hands a task out again when it was not acknowledged this long after: longer
    # than any task may run, so a running task is never handed out twice
    "retry": _TASK_TIMEOUT + 120,
    "max_attempts": 1,
    "ack_failures": True,
    "catch_up": False,
    "save_limit": 500,
    "poll": 0.5,
    "label": _("Background tasks"),
    **({"redis": REDIS_URL} if REDIS_URL else {"orm": "default"}),
}

#: Seconds the runtime API caches which release a selector (default, ``?release=N``, ``?label=``)
#: points at; every publish, label move and rollback invalidates it at once (docs/runtime-api.md).
SKILL_CONSOLE_RUNTIME_LOOKUP_TTL = float(os.environ.get("SKILL_CONSOLE_RUNTIME_LOOKUP_TTL", "5"))

#: Days raw runtime reports are kept (``manage.py purge_reports`` deletes older rows; the per-day
#: rollups are kept). A record older than this is refused on ingest (docs/runtime-api.md, "Reports").
SKILL_CONSOLE_REPORTS_RETENTION_DAYS = int(
    os.environ.get("SKILL_CONSOLE_REPORTS_RETENTION_DAYS", str(REPORTS_RETENTION_DAYS_DEFAULT))
)
if SKILL_CONSOLE_REPORTS_RETENTION_DAYS < 1:
    raise ImproperlyConfigured(
        f"SKILL_CONSOLE_REPORTS_RETENTION_DAYS must be 1 or more days, got {SKILL_CONSOLE_REPORTS_RETENTION_DAYS}"
    )

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    # Server errors (with their traceback) and the app's own warnings reach the server's log.
    "loggers": {
        "django.request": {"handlers": ["console"], "level": "ERROR", "propagate": False},
        "skills_app": {"handlers": ["console"], "level": "INFO", "propagate": False},
        # skills_app.core.faults (503s), skills_app.core.cache (Redis unreachable): warnings name the request, never a secret.
        "console": {"handlers": ["console"], "level": "INFO", "propagate": False},
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTHENTICATION_BACKENDS = [
    # django-axes first: a locked-out username + address is refused before the password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
#: Login throttling (django-axes, docs/deploy.md): after ``AXES_FAILURE_LIMIT`` failed logins for one
#: username from one address, that pair is locked out for ``AXES_COOLOFF_TIME`` (429 and the
#: page ``registration/locked_out.html``); a successful login resets the count.
AXES_ENABLED = _env_flag("SKILL_CONSOLE_LOGIN_THROTTLE", True)
AXES_FAILURE_LIMIT = int(os.environ.get("SKILL_CONSOLE_LOGIN_FAILURES", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("SKILL_CONSOLE_LOGIN_LOCKOUT_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_HTTP_RESPONSE_CODE = 429
#: Behind a reverse proxy the client address is the last hop the proxy adds (docs/deploy.md).
AXES_IPWARE_PROXY_COUNT = int(os.environ.get("SKILL_CONSOLE_PROXY_COUNT", "0")) or None
AXES_IPWARE_PROXY_ORDER = "right-most"  # nginx appends the address it saw: the right end is trusted
AXES_IPWARE_META_PRECEDENCE_ORDER = (
    ("HTTP_X_FORWARDED_FOR", "REMOTE_ADDR") if AXES_IPWARE_PROXY_COUNT else ("REMOTE_ADDR",)
)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", _("简体中文")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "skills_app" / "locale"]


def _time_zone() -> str:
    """``SKILL_CONSOLE_TIME_ZONE`` (an IANA name, default ``Asia/Shanghai``): the zone the pages show
    times in unless a user chooses another (``skills_app.core.zones``). A name the host's time zone
    database does not hold stops the start-up, naming it."""
    name = os.environ.get("SKILL_CONSOLE_TIME_ZONE", "").strip() or "Asia/Shanghai"
    if name not in available_timezones():
        raise ImproperlyConfigured(
            f"SKILL_CONSOLE_TIME_ZONE={name!r} is not a time zone of the IANA database this host knows "
            "(zoneinfo.available_timezones()); use a name such as Asia/Shanghai, Europe/Berlin or UTC"
        )
    return name


TIME_ZONE = _time_zone()
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
private_dir(STATIC_ROOT)  # collectstatic's target (0700 like all of var/); WhiteNoise warns when it is missing
# WhiteNoise serves the static files with DEBUG off; straight from the apps (no collectstatic needed).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# --- HTTPS behind a reverse proxy (docs/deploy.md): each off unless its variable is set --------
#: ``SKILL_CONSOLE_PROXY_SSL_HEADER=1``: trust the proxy's ``X-Forwarded-Proto: https``.
if _env_flag("SKILL_CONSOLE_PROXY_SSL_HEADER"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = _env_flag("SKILL_CONSOLE_SSL_REDIRECT")
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # the load balancer's probe may come over plain HTTP
SECURE_HSTS_SECONDS = int(os.environ.get("SKILL_CONSOLE_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = _env_flag("SKILL_CONSOLE_HSTS_INCLUDE_SUBDOMAINS")
SECURE_HSTS_PRELOAD = _env_flag("SKILL_CONSOLE_HSTS_PRELOAD")
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = _env_flag("SKILL_CONSOLE_SECURE_COOKIES")
CSRF_TRUSTED_ORIGINS = _env_list("SKILL_CONSOLE_CSRF_TRUSTED_ORIGINS")
#: CSRF failures: the console's 403 page, or JSON under /api/ (``skills_app.core.faults``).
CSRF_FAILURE_VIEW = "skills_app.core.faults.csrf_failure"

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "skills:skill_list"
LOGOUT_REDIRECT_URL = "login"

#: Django's default, named here because the OpenAPI description states it.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
#: Files one request may upload: one past the import page's own limit, so 101–500 single files
#: are imported and one file too many gets the page's sentence ("more than 500 files; upload a
#: zip", docs/import-export.md) instead of Django's bare 400 (its default is 100).
DATA_UPLOAD_MAX_NUMBER_FILES = IMPORT_MAX_FILES + 1

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "skills_app.runtime.auth.RuntimeKeyAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["skills_app.runtime.auth.IsRuntimeClient"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "skills_app.runtime.exception_handlers.api_exception_handler",
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Skill Console runtime API",
    "DESCRIPTION": "Releases of skill manuals and the per-round tool masking rule, served to the agent runtime. "
    f"Limits: a request body of at most {DATA_UPLOAD_MAX_MEMORY_SIZE} bytes (413 "
    "`request_too_large`); the other limits are stated on each field (`maxItems`, `maxLength`).",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # /api/v1/docs: Swagger UI from drf-spectacular-sidecar's static files, never a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}
