"""The simulator: the preview page, saved scenarios and their reports (docs/simulator.md)."""
