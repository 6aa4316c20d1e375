"""A user's own preferences: the time zone pages are shown in (issue 29, item 3)."""
