"""Import and export of skill files (docs/import-export.md)."""
