"""Runtime reports: ingest (services), the per-day rollups and the instances (selectors); docs/design.md "Reports"."""
