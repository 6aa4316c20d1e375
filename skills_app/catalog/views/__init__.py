"""Pages of the catalog: skills, tools, restrictions."""
