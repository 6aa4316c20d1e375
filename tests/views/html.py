"""A tiny HTML tree for view tests (stdlib only): find elements by their data- attributes and
read real values instead of searching the page text."""

from __future__ import annotations

from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Node:
    def __init__(self, tag: str, attrs: dict[str, str], parent: Node | None = None) -> None:
        self.tag = tag
        self.attrs = attrs
        self.parent = parent
        self.children: list[Node | str] = []

    def __getitem__(self, key: str) -> str:
        return self.attrs[key]

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.attrs.get(key, default)

    def iter(self):
        for child in self.children:
            if isinstance(child, Node):
                yield child
                yield from child.iter()

    def select(self, attr: str, value: str | None = None, tag: str | None = None) -> list[Node]:
        """Descendants having ``attr`` (equal to ``value`` when given), optionally of ``tag``."""
        return [
            n
            for n in self.iter()
            if attr in n.attrs and (value is None or n.attrs[attr] == value) and (tag is None or n.tag == tag)
        ]

    def one(self, attr: str, value: str | None = None, tag: str | None = None) -> Node:
        found = self.select(attr, value, tag)
        assert len(found) == 1, f"expected one [{attr}={value}], found {len(found)}"
        return found[0]

    def values(self, attr: str) -> list[str]:
        """The value of ``attr`` on every descendant that has it, in document order."""
        return [n.attrs[attr] for n in self.select(attr)]

    def text(self) -> str:
        parts: list[str] = []
        for child in self.children:
            parts.append(child if isinstance(child, str) else child.text())
        return "".join(parts)

    def by_tag(self, tag: str) -> list[Node]:
        return [n for n in self.iter() if n.tag == tag]


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: (v if v is not None else "") for k, v in attrs}, self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Node(tag, {k: (v or "") for k, v in attrs}, self.current))

    def handle_endtag(self, tag):
        node = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data):
        self.current.children.append(data)


def parse(html: str | bytes) -> Node:
    builder = _Builder()
    builder.feed(html.decode() if isinstance(html, bytes) else html)
    builder.close()
    return builder.root
