"""A serialized DOM read back with the standard library's HTML parser: its elements with their attributes,
and its text, whitespace collapsed."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Dom:
    elements: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    chunks: list[str] = field(default_factory=list)
    title: str = ""

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.chunks).split())

    def tags(self, name: str) -> list[dict[str, str]]:
        return [attrs for tag, attrs in self.elements if tag == name]

    def attributes(self) -> list[tuple[str, str, str]]:
        """Every (tag, attribute, value) of the page."""
        return [(tag, key, value) for tag, attrs in self.elements for key, value in attrs.items()]


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.dom = Dom()
        self._in: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.dom.elements.append((tag, {k: v or "" for k, v in attrs}))
        self._in.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._in:
            while self._in.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if self._in[-1:] == ["title"] and "svg" not in self._in:
            self.dom.title += data
        elif self._in[-1:] != ["style"]:
            self.dom.chunks.append(data)


def parse(html: str) -> Dom:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return reader.dom
