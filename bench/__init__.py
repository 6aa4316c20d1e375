"""``make bench`` (docs/benchmarks.md): the runtime API and the console pages measured against floors
served by the same gunicorn server, the simulator's growth with rounds, and the query counts of the
console pages at 5 and at 500 skills.

Not part of the application (never installed, never imported by ``console`` or ``skills_app``):

- ``bench.catalog`` — the large catalog (the bitmall demo topped up to 500 skills and 2,000 MCP
  tools on an intent tree) as plain data, and the builder of the two benchmark databases;
- ``bench.settings`` / ``bench.urls`` / ``bench.floors`` — the console's settings and URLs plus
  the two floors (``/bench/floor/catalog``, ``/bench/floor/parse``), for the benchmark server only;
- ``bench.inproc`` — page timings and query counts (Django's test client) and the simulator timings,
  in one process per database;
- ``bench.http`` — the HTTP driver against gunicorn;
- ``bench.__main__`` — ``python -m bench``: builds, serves, measures and prints the table.
"""
