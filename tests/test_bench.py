"""``make bench``'s package imports and its large catalog has exactly 500 skills and 2,000 MCP tools
(docs/benchmarks.md). Built in memory: no database, no server, no timing."""

from bench import catalog as bench_catalog
from bench import floors, http, inproc  # noqa: F401  (imports without a server or a database)


def test_the_large_catalog_holds_500_skills_and_2000_mcp_tools():
    catalog = bench_catalog.domain_catalog()
    assert len(catalog.skills) == 500
    assert len(catalog.enabled_skills) == 500
    assert len(catalog.mcp_tool_names) == 2000
    assert len(set(catalog.mcp_tool_names)) == 2000
    # every generated skill gates 4 tools of its own, and its manual names them
    generated = [s for s in catalog.skills if s.code.startswith("bench_s")]
    assert len(generated) == 495
    assert all(len(s.tool_ids) == 4 and all(f"`{t}`" in s.content for t in s.tool_ids) for s in generated)
    assert len(catalog.gated_tool_ids) == 495 * 4 + 6  # the demo gates 6 tools


def test_generated_scripts_have_the_rounds_and_calls_asked_for():
    catalog = bench_catalog.domain_catalog()
    script = inproc.script_for(catalog, 20, 2)
    assistants = [s for s in script.steps if s.kind == "assistant"]
    assert len(assistants) == 20 and all(len(s.calls) == 2 for s in assistants)
    assert assistants[0].calls[0].name == "load_skill"


def test_the_rounds_body_holds_200_messages():
    import json

    body = json.loads(
        http.rounds_body({"marker_key": "m", "skills": [{"code": "a_b", "name": "n", "version": 1, "tool_ids": ["t"]}]})
    )
    assert len(body["messages"]) == 200


def test_a_script_started_further_on_walks_the_skills_from_there_and_wraps_round():
    catalog = bench_catalog.domain_catalog()
    codes = [s.code for s in catalog.enabled_skills]
    first = inproc.script_for(catalog, 1, 1, start=37).steps[1].calls[0]
    assert (first.name, first.arguments) == ("load_skill", {"skill_code": codes[37]})
    wrapped = inproc.script_for(catalog, 1, 1, start=len(codes) + 2).steps[1].calls[0]
    assert wrapped.arguments == {"skill_code": codes[2]}


def test_page_runs_merge_into_the_median_of_their_medians_and_the_most_queries():
    from bench.__main__ import merge_page_runs

    def run(ms, queries, low):
        return {"skills": 5, "/skills/": {"queries": queries, "ms": {"median": ms, "min": low, "n": 9}}}

    merged = merge_page_runs([run(4.0, 4, 3.5), run(9.0, 5, 3.1), run(5.0, 4, 4.2)])
    assert merged == {"skills": 5, "runs": 3, "/skills/": {"queries": 5, "ms": {"median": 5.0, "min": 3.1, "n": 27}}}


def test_the_simulator_rows_compare_the_fastest_runs_and_note_the_medians():
    from bench.__main__ import rows_from

    def size(low: float, median: float, calls: int, n: int) -> dict:
        return {"min": low, "median": median, "n": n, "calls": calls}

    sim = {
        "20x2": size(0.001, 0.0015, 40, 14),
        "200x2": size(0.0105, 0.0110, 400, 7),
        "200x40": size(0.1, 0.2, 8000, 3),
    }
    rows = rows_from({"sim": {"large": sim}})
    growth, per_call = rows
    assert growth["metric"] == "simulate 200 vs 20 rounds ×2 calls, large"
    assert growth["value"] == 10.5 and growth["floor"] == 1.0 and growth["ratio"] == 10.5 and growth["pass"] is True
    assert growth["note"] == "median 11.0 / 1.5 ms, n=7+14"
    assert per_call["value"] == 12.5 and per_call["floor"] == 25.0 and per_call["ratio"] == 0.5
    assert per_call["note"] == "200×40 total 0.10 s (median 0.20 s, n=3)"
    sim["200x2"] = size(0.0121, 0.0121, 400, 7)
    assert rows_from({"sim": {"large": sim}})[0]["pass"] is False  # 12.1× the 20-round run
