"""MCP servers, their synced tools, the sync and its background task (docs/mcp.md)."""
