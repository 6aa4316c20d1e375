"""Pages of the simulator: the preview and saved scenarios."""
