"""Immutable releases, labels, the publish gate and rollback (docs/releases.md)."""
