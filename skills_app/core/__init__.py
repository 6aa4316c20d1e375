"""What every feature leans on and that knows no feature: the message catalog, roles, write helpers,
faults, the cache backend, private files, health (docs/design.md "The house")."""
