"""Run mutmut's command line with ``@transaction.atomic`` functions mutated (``make mutation`` uses it).

mutmut 3 leaves every decorated function unmutated, except ``@staticmethod`` and ``@classmethod``
(``MutationVisitor._skip_node_and_children``: a decorator runs when the function is defined, and its
copies could register twice). The writes of the features' ``services.py`` and of ``mcp/sync.py`` are
``@transaction.atomic`` functions, and they are what mutation testing must reach. A bare
``@transaction.atomic`` has neither risk: it only wraps the function. So this launcher lets mutmut
mutate a function whose decorators are all ``transaction.atomic`` and keeps the decorator on the
trampoline (the name callers import) only, not on the original's and the mutants' copies behind it:
each call runs in one transaction, as in production, not in a savepoint inside it.

Usage: ``python tools/mutmut_run.py ARGS...``, the arguments of ``mutmut`` (``run``, ``results``,
``show NAME`` ...). mutmut's other decorated functions (``@property``, ``@cached_property``,
``@lru_cache``, ``@contextmanager``) stay unmutated (docs/testing.md). Written against mutmut 3.8
(``pyproject.toml`` keeps it below 3.9); it stops with a message naming what it cannot find when a
later mutmut renames the two internals it wraps.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import libcst as cst
import libcst.matchers as m
from libcst.metadata import PositionProvider
from mutmut.mutation import file_mutation

#: The one decorator mutmut may look through: ``@transaction.atomic``, bare.
ATOMIC = m.Decorator(decorator=m.Attribute(value=m.Name("transaction"), attr=m.Name("atomic")))


def only_atomic(function: cst.FunctionDef) -> bool:
    """Whether ``function`` has decorators and every one is a bare ``@transaction.atomic``."""
    return bool(function.decorators) and all(m.matches(d, ATOMIC) for d in function.decorators)


def _patch() -> None:
    visitor = getattr(file_mutation, "MutationVisitor", None)
    skip = getattr(visitor, "_skip_node_and_children", None)
    arrange = getattr(file_mutation, "function_trampoline_arrangement", None)
    if skip is None or arrange is None:
        sys.exit(
            "tools/mutmut_run.py: this mutmut has no MutationVisitor._skip_node_and_children or "
            "function_trampoline_arrangement (written for mutmut 3.8): update the launcher"
        )
    if getattr(skip, "_atomic_aware", False):
        return

    def skip_node_and_children(self: Any, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.FunctionDef) and only_atomic(node):
            # what mutmut checks of an undecorated function: a `no mutate block` pragma, a name never mutated
            position = self.get_metadata(PositionProvider, node, None)
            if position and position.start.line in self._ignored_node_lines:
                self.ignored_functions.add(node.name.value)
                return True
            return node.name.value in file_mutation.NEVER_MUTATE_FUNCTION_NAMES
        return skip(self, node)

    def function_trampoline_arrangement(function: cst.FunctionDef, *args: Any, **kwargs: Any) -> Any:
        declarations, nodes, assignments, names = arrange(function, *args, **kwargs)
        if only_atomic(function):
            # nodes: the trampoline (keeps the decorator), then the original's and the mutants' copies
            nodes = [nodes[0], *(n.with_changes(decorators=[]) for n in nodes[1:])]
        return declarations, nodes, assignments, names

    skip_node_and_children._atomic_aware = True  # type: ignore[attr-defined]
    visitor._skip_node_and_children = skip_node_and_children  # type: ignore[union-attr]
    file_mutation.function_trampoline_arrangement = function_trampoline_arrangement


def main(argv: Sequence[str]) -> None:
    from mutmut.__main__ import cli

    sys.argv = ["mutmut", *argv]
    cli()


# At import, not under __main__: a worker process started by "spawn" imports this file again.
_patch()

if __name__ == "__main__":
    main(sys.argv[1:])
