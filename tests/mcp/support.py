"""Real demo MCP servers for the tests: stdio (a subprocess per sync) and streamable HTTP (a
subprocess listening on a free port of 127.0.0.1)."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

from skills_app.mcp.services import mcp_server_save
from skills_app.mcp.sync import demo_server_args
from skills_app.models import McpServer

#: Time limit of a sync that should succeed: generous, since starting the SDK takes seconds on a
#: loaded machine; a sync that succeeds returns as soon as it is done.
TIMEOUT = 60.0
#: Time limit of the hanging server: what the hang test waits for.
HANG_TIMEOUT = 5.0


def stdio_server(variant: str = "v1", *, name: str = "bitmall") -> McpServer:
    """A stdio server record running ``skills_app.demo.bitmall_mcp`` in ``variant``."""
    existing = McpServer.objects.filter(name=name).first()
    return mcp_server_save(
        name=name,
        transport="stdio",
        command=sys.executable,
        args=demo_server_args(variant),
        timeout_seconds=TIMEOUT,
        instance=existing,
    )


def set_variant(server: McpServer, variant: str) -> McpServer:
    """Point ``server`` (stdio) at another variant of the demo server (the hanging one gets
    ``HANG_TIMEOUT``)."""
    return mcp_server_save(
        name=server.name,
        transport="stdio",
        command=server.command,
        args=demo_server_args(variant),
        timeout_seconds=HANG_TIMEOUT if variant == "hang" else TIMEOUT,
        instance=server,
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def http_demo(variant: str = "v1", token: str = "") -> Iterator[str]:
    """Run the demo server over streamable HTTP on a free port (asking for ``Authorization:
    Bearer <token>`` when given); yield its URL."""
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            *demo_server_args(variant),
            "--http",
            "--port",
            str(port),
            *(["--token", token] if token else []),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if proc.poll() is not None:
                raise RuntimeError(f"demo server exited: {proc.stderr.read().decode()}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
