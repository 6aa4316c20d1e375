"""The HTTP half of ``make bench`` (docs/benchmarks.md): the runtime API against its floors, served
by the same gunicorn server (``bench.settings``).

Each measurement runs ``CLIENTS`` client threads, each with its own ``http.client`` connection
(reopened when the server closes it: gunicorn's sync workers answer ``Connection: close``). Every
client alternates a floor request and a measured request, the two orders swapped between clients,
so the machine's drift falls on both alike. The figure is the median latency of each; the ratio is
floor ÷ measured (1.0 = as fast as the floor).
"""

from __future__ import annotations

import http.client
import json
import statistics
import threading
import time
from dataclasses import dataclass
from typing import Any

CLIENTS = 2


@dataclass(frozen=True)
class Req:
    """One request: method, path, headers, body; ``expect`` the status it must answer."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes | None = None
    expect: int = 200


def send(conn: http.client.HTTPConnection, req: Req) -> tuple[int, dict[str, str], bytes]:
    """Send ``req`` on ``conn`` (reconnecting once if the server had closed it): status, headers, body."""
    for attempt in (1, 2):
        try:
            conn.request(req.method, req.path, body=req.body, headers=req.headers)
            response = conn.getresponse()
            body = response.read()
            if response.will_close:
                conn.close()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, body
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            conn.close()
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def paired(
    host: str, port: int, floor: Req, measured: Req, *, budget: float, max_pairs: int = 300, min_pairs: int = 4
) -> dict[str, Any]:
    """Alternate ``floor`` and ``measured`` from ``CLIENTS`` threads until ``budget`` seconds have
    passed (at least ``min_pairs`` pairs per client, at most ``max_pairs``); returns the latencies'
    min and median in milliseconds for each, and the ratio floor ÷ measured of the medians."""
    times: dict[str, list[float]] = {"floor": [], "measured": []}
    lock = threading.Lock()
    errors: list[str] = []
    deadline = time.perf_counter() + budget

    def client(n: int) -> None:
        conn = http.client.HTTPConnection(host, port, timeout=120)
        order = [("floor", floor), ("measured", measured)]
        if n % 2:
            order.reverse()
        pairs = 0
        while pairs < max_pairs and (pairs < min_pairs or time.perf_counter() < deadline):
            for name, req in order:
                t0 = time.perf_counter()
                status, _headers, _body = send(conn, req)
                elapsed = time.perf_counter() - t0
                if status != req.expect:
                    errors.append(f"{req.method} {req.path}: HTTP {status}, expected {req.expect}")
                    return
                with lock:
                    times[name].append(elapsed)
            pairs += 1
        conn.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError(errors[0])
    out: dict[str, Any] = {}
    for name, values in times.items():
        out[name] = {"min": min(values) * 1000, "median": statistics.median(values) * 1000, "n": len(values)}
    out["ratio"] = out["floor"]["median"] / out["measured"]["median"]
    return out


def rounds_body(catalog: dict[str, Any], n_messages: int = 200, manuals: dict[str, str] | None = None) -> bytes:
    """A ``POST runtime/rounds`` body of ``n_messages`` retained messages: a user message, then
    repeated (assistant ``load_skill`` call, its tool result carrying the loaded-skill marker,
    assistant call of a gated tool, its result, user message) over the catalog's skills. The
    result holds the skill's manual from ``manuals`` (code → text, ``GET runtime/skills/{code}``):
    only a whole published manual loads a skill (docs/transcripts.md); a placeholder without it."""
    marker = catalog["marker_key"]
    skills = catalog["skills"]
    messages: list[dict[str, Any]] = [{"role": "user", "content": "帮我处理几件事"}]
    i = 0
    while len(messages) < n_messages:
        s = skills[i % len(skills)]
        cid = f"c{i}"
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": cid + "a", "name": "load_skill", "arguments": {"skill_code": s["code"]}}],
            }
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": cid + "a",
                "state": "success",
                "content": (manuals or {}).get(s["code"], f"# {s['name']}\n" + "按手册步骤处理。\n" * 40),
                "metadata": {marker: s["code"], "skill_version": s["version"]},
            }
        )
        tool = s["tool_ids"][0] if s["tool_ids"] else "search_knowledge"
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": cid + "b", "name": tool, "arguments": {"record_no": "12345"}}],
            }
        )
        messages.append({"role": "tool", "tool_call_id": cid + "b", "state": "success", "content": "处理完成。"})
        messages.append({"role": "user", "content": f"好的，下一件 {i}"})
        i += 1
    return json.dumps({"messages": messages[:n_messages]}, ensure_ascii=False).encode("utf-8")


def measure(host: str, port: int, key: str, catalog_file: str, *, budget: float = 20.0) -> dict[str, Any]:
    """The three HTTP measurements against a running bench server whose floors read
    ``catalog_file``: catalog 200 and 304 against the catalog floor, rounds (200 messages)
    against the parse floor. Writes ``catalog_file`` from a real catalog response first."""
    auth = {"Authorization": f"Bearer {key}"}
    conn = http.client.HTTPConnection(host, port, timeout=300)
    status, headers, body = send(conn, Req("GET", "/api/v1/runtime/catalog", auth))
    if status != 200:
        raise RuntimeError(f"GET /api/v1/runtime/catalog: HTTP {status}: {body[:300]!r}")
    with open(catalog_file, "wb") as f:
        f.write(body)
    catalog = json.loads(body)
    etag = headers["etag"]
    status, _h, floor_body = send(conn, Req("GET", "/bench/floor/catalog", {}))
    if status != 200 or floor_body != body:
        raise RuntimeError("the catalog floor does not answer the catalog's bytes")
    manuals: dict[str, str] = {}
    for s in catalog["skills"][: 200 // 5 + 1]:  # the skills the 200 messages load, one result each
        status, _h, skill = send(conn, Req("GET", f"/api/v1/runtime/skills/{s['code']}", auth))
        if status != 200:
            raise RuntimeError(f"GET /api/v1/runtime/skills/{s['code']}: HTTP {status}: {skill[:300]!r}")
        manuals[s["code"]] = json.loads(skill)["content"]
    payload = rounds_body(catalog, manuals=manuals)
    post = {**auth, "Content-Type": "application/json"}
    status, _h, answer = send(conn, Req("POST", "/api/v1/runtime/rounds", post, payload))
    if status != 200:
        raise RuntimeError(f"POST /api/v1/runtime/rounds: HTTP {status}: {answer[:300]!r}")
    if not json.loads(answer)["loaded"]:
        raise RuntimeError("the rounds body loads no skill: its results do not hold the published manuals")
    conn.close()
    floor_catalog = Req("GET", "/bench/floor/catalog", {})
    out = {
        "catalog_bytes": len(body),
        "skills": len(catalog["skills"]),
        "mcp_tools": len(catalog["mcp_tools"]),
        "rounds_body_bytes": len(payload),
        "rounds_messages": len(json.loads(payload)["messages"]),
        "catalog_200": paired(host, port, floor_catalog, Req("GET", "/api/v1/runtime/catalog", auth), budget=budget),
        "catalog_304": paired(
            host,
            port,
            floor_catalog,
            Req("GET", "/api/v1/runtime/catalog", {**auth, "If-None-Match": etag}, expect=304),
            budget=budget,
        ),
        "rounds_200": paired(
            host,
            port,
            Req("POST", "/bench/floor/parse", post, payload),
            Req("POST", "/api/v1/runtime/rounds", post, payload),
            budget=budget,
        ),
    }
    return out
