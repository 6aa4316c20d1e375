"""The runtime API (``/api/v1/``): catalogs, manuals, rounds and the guard served as JSON (docs/runtime-api.md)."""
