"""History and audit: a skill's revisions and the audit log across records (docs/roles.md)."""
