"""Console pages (docs/design.md, docs/rule.md, docs/simulator.md). Thin views: validate input, call one service, selector or
domain function, render. Every page needs a logged-in user."""

from . import history, preview, restrictions, scenarios, skills, tools  # noqa: F401
