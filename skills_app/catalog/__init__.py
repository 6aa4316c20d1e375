"""The draft catalog: skills and their manuals, restrictions, the intent tree, tools (docs/design.md "Records")."""
