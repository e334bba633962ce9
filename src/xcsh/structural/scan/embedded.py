"""Code embedded in HTML files: ``<script>`` and ``<style>``, as ast-grep searches them.

ast-grep searches ``<script>`` (JavaScript, or the language its ``lang``
attribute names) and ``<style>`` (CSS) of HTML files when it searches those
languages. Each embedded language gets the file's text with everything outside
its elements blanked (line breaks kept), so a match's lines, columns and byte
offsets are those of the HTML file and a rewrite lands in place.
"""

from __future__ import annotations

from ast_grep_py import SgNode, SgRoot

_EMBEDDED = {"script_element": "javascript", "style_element": "css"}


_LANG_ATTRIBUTE = {
    "js": "javascript",
    "javascript": "javascript",
    "jsx": "javascript",
    "ts": "typescript",
    "typescript": "typescript",
    "tsx": "tsx",
    "css": "css",
    "scss": "css",
}


def _element_language(element: SgNode) -> str | None:
    """The language of a ``<script>``/``<style>`` element: its ``lang`` attribute or the default."""
    start = element.child(0)
    if start is not None:
        for attribute in start.children():
            if attribute.kind() != "attribute":
                continue
            name = attribute.child(0)
            if name is None or name.text().lower() != "lang":
                continue
            value = attribute.find(kind="attribute_value")
            return _LANG_ATTRIBUTE.get(value.text().strip().lower()) if value else None
    return _EMBEDDED.get(element.kind())


def embedded_sources(text: str, wanted: set[str]) -> dict[str, str]:
    """The code of each embedded language of an HTML file, at its own positions.

    ast-grep searches ``<script>`` (JavaScript, or the ``lang`` attribute's language)
    and ``<style>`` (CSS) of HTML files. Each language gets the file's text with
    everything outside its elements blanked (line breaks kept), so lines, columns and
    offsets of a match are those of the HTML file.
    """
    html = SgRoot(text, "html").root()
    spans: dict[str, list[tuple[int, int]]] = {}
    for kind in _EMBEDDED:
        for element in html.find_all(kind=kind):
            language = _element_language(element)
            raw = element.find(kind="raw_text")
            if language in wanted and raw is not None:
                rng = raw.range()
                spans.setdefault(language, []).append((rng.start.index, rng.end.index))
    out: dict[str, str] = {}
    for language, ranges in spans.items():
        parts: list[str] = []
        cursor = 0
        for start, end in sorted(ranges):
            parts.append(_blank(text[cursor:start]))
            parts.append(text[start:end])
            cursor = end
        parts.append(_blank(text[cursor:]))
        out[language] = "".join(parts)
    return out


def _blank(text: str) -> str:
    return "".join(ch if ch == "\n" else " " for ch in text)


HOSTED = frozenset({"javascript", "typescript", "tsx", "css"})


def hosts(language: str) -> bool:
    """Whether files of ``language`` may embed code of other languages (HTML)."""
    return language == "html"
