"""gunicorn settings for ``make serve`` and production (docs/deploy.md). Every value can be changed
with an environment variable; gunicorn's own ``GUNICORN_CMD_ARGS`` works too.

- ``SKILL_CONSOLE_BIND`` (default ``127.0.0.1:8000``): where to listen — behind nginx, a loopback
  address or a unix socket (``unix:/run/skill-console/gunicorn.sock``).
- ``WEB_CONCURRENCY``: worker processes, default ``2 × CPU cores + 1`` (gunicorn's advice).
- ``SKILL_CONSOLE_WORKER_TIMEOUT`` (default 60 s): a worker silent that long is restarted.
- ``SKILL_CONSOLE_FORWARDED_ALLOW_IPS`` (default ``127.0.0.1``): proxies whose
  ``X-Forwarded-*`` headers are believed.
"""

import multiprocessing
import os

wsgi_app = "console.wsgi:application"
bind = os.environ.get("SKILL_CONSOLE_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY") or multiprocessing.cpu_count() * 2 + 1)
timeout = int(os.environ.get("SKILL_CONSOLE_WORKER_TIMEOUT", "60"))
graceful_timeout = 30
keepalive = 5
forwarded_allow_ips = os.environ.get("SKILL_CONSOLE_FORWARDED_ALLOW_IPS", "127.0.0.1")
# The access log to stderr: method, path, status, size, time — never headers, so never an API key.
accesslog = "-"
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'
errorlog = "-"
# The application is imported once, before the workers fork (less memory, a broken settings file
# fails at start); each worker opens its own database connections after the fork.
preload_app = True
# gunicorn ≥ 23's control socket defaults to one path per user (~/.gunicorn/gunicorn.ctl): several
# servers on one host (or the tests' three) would share it. Off unless a path is given.
if os.environ.get("SKILL_CONSOLE_CONTROL_SOCKET"):
    control_socket = os.environ["SKILL_CONSOLE_CONTROL_SOCKET"]
else:
    control_socket_disable = True
