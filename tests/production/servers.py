"""Real servers for the production tests (docs/deploy.md): gunicorn processes started from this
repository's ``gunicorn.conf.py``, PostgreSQL databases made for one test and dropped after, and a
private ``redis-server`` that a test can stop. Everything listens on 127.0.0.1 and free ports."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
GUNICORN = str(Path(PYTHON).with_name("gunicorn"))
PG = {
    "host": os.environ.get("PGHOST", "127.0.0.1"),
    "port": int(os.environ.get("PGPORT", "5432")),
    "user": os.environ.get("PGUSER", "postgres"),
}
REDIS_HOST, REDIS_PORT = "127.0.0.1", 6379
#: Variables of the environment that would steer a child process away from what the test sets.
STEERING = re.compile(r"^(SKILL_CONSOLE_|PG|DJANGO_SETTINGS_MODULE$|WEB_CONCURRENCY$|GUNICORN_CMD_ARGS$)")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def pg_connect(dbname: str = "postgres"):
    import psycopg

    return psycopg.connect(host=PG["host"], port=PG["port"], user=PG["user"], dbname=dbname, autocommit=True)


def pg_terminate(name: str) -> None:
    """Close every connection to database ``name`` (so it can be renamed or dropped)."""
    with pg_connect() as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )


def pg_rename(old: str, new: str) -> None:
    pg_terminate(old)
    with pg_connect() as conn:
        conn.execute(f'ALTER DATABASE "{old}" RENAME TO "{new}"')


@contextmanager
def pg_database(template: str | None = None) -> Iterator[str]:
    """A new, empty PostgreSQL database (a copy of ``template`` when given), dropped afterwards."""
    name = f"sc_prod_{uuid.uuid4().hex[:10]}"
    if template:
        pg_terminate(template)
    with pg_connect() as conn:
        conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    try:
        yield name
    finally:
        for candidate in (name, f"{name}_gone"):
            pg_terminate(candidate)
            with pg_connect() as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{candidate}"')


def child_env(**values: str) -> dict[str, str]:
    """This process's environment without the variables that steer Skill Console, plus ``values``."""
    env = {k: v for k, v in os.environ.items() if not STEERING.match(k)}
    env.update({k: str(v) for k, v in values.items()})
    return env


def manage(env: dict[str, str], *args: str) -> str:
    """Run ``manage.py ARGS`` in a child process; return its output (raises when it fails)."""
    done = subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"manage.py {' '.join(args)}: {done.stdout}\n{done.stderr}"
    return done.stdout


class Gunicorn:
    """One gunicorn server (``gunicorn.conf.py``, one worker unless told) on a free port."""

    def __init__(self, env: dict[str, str], log: Path, workers: int = 1) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.env = {**env, "SKILL_CONSOLE_BIND": f"127.0.0.1:{self.port}", "WEB_CONCURRENCY": str(workers)}
        self.process: subprocess.Popen | None = None

    def start(self) -> Gunicorn:
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                [GUNICORN, "-c", "gunicorn.conf.py"],
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"gunicorn exited: {self.log.read_text()[-3000:]}"
            try:
                requests.get(self.url + "/healthz", timeout=10)
                return self
            except requests.ConnectionError:
                time.sleep(0.2)
        raise AssertionError(f"gunicorn did not answer within 60 s: {self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def get(self, path: str, **kwargs) -> requests.Response:
        kwargs.setdefault("timeout", 30)
        kwargs.setdefault("allow_redirects", False)
        return requests.get(self.url + path, **kwargs)


class RedisServer:
    """A private ``redis-server`` (no persistence) on ``port``; ``stop()`` really stops it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.process: subprocess.Popen | None = None

    def start(self) -> RedisServer:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is not installed"
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while not reachable("127.0.0.1", self.port):
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.1)
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)


def login(session: requests.Session, server: Gunicorn, username: str, password: str) -> requests.Response:
    """Log in through ``server``'s login form (CSRF cookie and token as a browser sends them)."""
    session.get(server.url + "/accounts/login/", timeout=30)
    token = session.cookies.get("csrftoken")
    return session.post(
        server.url + "/accounts/login/",
        data={
            "username": username,
            "password": password,
            "csrfmiddlewaretoken": token,
            "next": "/skills/",
        },
        headers={"Referer": server.url + "/accounts/login/"},
        timeout=30,
        allow_redirects=False,
    )


def post_form(session: requests.Session, server: Gunicorn, path: str, data: dict) -> requests.Response:
    """POST a console form through ``server`` with the session's CSRF token."""
    return session.post(
        server.url + path,
        data={**data, "csrfmiddlewaretoken": session.cookies.get("csrftoken")},
        headers={"Referer": server.url + path},
        timeout=60,
        allow_redirects=False,
    )
