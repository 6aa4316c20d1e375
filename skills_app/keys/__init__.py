"""Runtime API keys: create, revoke, list (docs/releases.md "Keys")."""
