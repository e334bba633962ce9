"""What a compiled pattern knows about itself, beyond what ast-grep tells.

That is the fixed tokens every match holds (the pre-filter), and the ``$$$`` names
ast-grep leaves unbound when they match nothing.
"""

from __future__ import annotations

import re

from ast_grep_py import SgNode

_PATTERN_META = re.compile(r"(?<![\w$])(\$\$\$|\$\$|\$)([A-Z0-9_]+)(?![\w$])")


def _is_metavariable_text(text: str, expando: str) -> bool:
    e = re.escape(expando)
    return re.fullmatch(rf"{e}{e}{e}|{e}{{1,3}}[A-Z_][A-Z0-9_]*", text) is not None


def cli_fixed_string(node: SgNode, expando: str) -> str:
    """ast-grep's ``PatternNode::fixed_string``: the longest leaf text, the first on ties."""
    text = node.text()
    if _is_metavariable_text(text, expando):
        return ""
    children = [c for c in node.children() if c.text() or c.kind()]
    if not children:
        return text
    longest = ""
    for child in children:
        found = cli_fixed_string(child, expando)
        if len(found) > len(longest):
            longest = found
    return longest


# Endings tried on a pattern whose root is an ERROR node: if with one of them (or inside a
# function body, see _BODY_WRAPPERS) the pattern matches a node that parsed cleanly, it can
# match real code.


def _leaves(node: SgNode, out: list[SgNode]) -> None:
    children = node.children()
    if not children:
        out.append(node)
        return
    for child in children:
        _leaves(child, out)


def metavariable_texts(pattern: str, expando: str) -> set[str]:
    """How the pattern's metavariables read after ast-grep substituted ``$`` (``µA``, ``_A``)."""
    texts = {expando * 3}
    for sigil, name in _PATTERN_META.findall(pattern):
        texts.add(expando * len(sigil) + name)
        texts.add(sigil + name)
    return texts


def fixed_tokens(node: SgNode, strictness: str, metavariables: set[str]) -> tuple[bytes, ...]:
    """List the texts every match of the pattern ``node`` holds, as UTF-8, each once.

    A file that lacks one of them cannot match, so it need not be parsed. Leaves that
    are blank, metavariables (``metavariables``: their texts after ast-grep's
    substitution) or comments are left out; at ``ast`` and ``relaxed`` strictness so are
    unnamed leaves, which a match may skip, and at ``signature`` strictness every leaf
    (``()``), as leaf text is not compared there.
    """
    if strictness == "signature":  # leaf text is not compared at this level
        return ()
    leaves: list[SgNode] = []
    _leaves(node, leaves)
    tokens: list[bytes] = []
    for leaf in leaves:
        text = leaf.text()
        if (
            not text.strip()
            or text in metavariables
            or "$" in text
            or "µ" in text
            or "comment" in leaf.kind()
        ):
            continue
        if strictness in ("ast", "relaxed") and not leaf.is_named():
            continue  # unnamed nodes may be skipped at these levels
        token = text.encode("utf-8")
        if token not in tokens:
            tokens.append(token)
    return tuple(tokens)


_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_GLUE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
"""The bytes that make a token part of a longer word (:func:`holds_word`)."""


def word_tokens(node: SgNode, strictness: str, metavariables: set[str]) -> tuple[bytes, ...]:
    """The fixed tokens of the pattern ``node`` that are identifiers made of ASCII word characters.

    A file holds such an identifier only where the token stands as a word of its own:
    a lexer reads ``pprint`` or ``print_function`` as one identifier, never ``print``
    inside it (see :func:`holds_word`). Those are the pattern's identifier leaves
    among :func:`fixed_tokens` whose text is ``[A-Za-z_][A-Za-z0-9_]*``.
    """
    tokens = set(fixed_tokens(node, strictness, metavariables))
    leaves: list[SgNode] = []
    _leaves(node, leaves)
    words: list[bytes] = []
    for leaf in leaves:
        token = leaf.text().encode("utf-8")
        if (
            token in tokens
            and token not in words
            and "identifier" in leaf.kind()
            and _WORD.fullmatch(token)
        ):
            words.append(token)
    return tuple(words)


def holds_word(raw: bytes, word: bytes) -> bool:
    """Whether ``raw`` holds ``word`` with no ASCII letter or ``_`` glued to either side.

    ``word`` is an identifier of ASCII word characters (:func:`word_tokens`). Where each
    occurrence has a letter or ``_`` right before or after it, it lies inside a longer
    identifier (``pprint``, ``print_function``), so the file holds no identifier
    ``word``. Digits, ``$`` and non-ASCII bytes count as boundaries (``1if`` may be two
    tokens in some grammars): a doubtful file is parsed.
    """
    size = len(word)
    at = raw.find(word)
    while at >= 0:  # bytes.find, not a regex: a look-behind scans every byte in Python's re
        end = at + size
        if (at == 0 or raw[at - 1] not in _GLUE) and (end == len(raw) or raw[end] not in _GLUE):
            return True
        at = raw.find(word, end)
    return False


# A pattern with context and the `sel` that picks the node to match, per language: each
# compiles and matches the code it suggests (tests/structural check them all).


def trailing_multi(node: SgNode, expando: str, strictness: str) -> tuple[str, ...]:
    """Find the ``$$$`` names ast-grep leaves unbound when they match nothing.

    Those are the ones with only other ``$$$`` after them among their siblings, and some
    other node before them.

    ast-grep binds a ``$$$`` only when its matcher reaches it while candidate nodes
    remain; one at the end of its list is skipped once the candidates ran out after
    the node before it, so the CLI reports nothing for it (not an empty list).
    """
    ellipsis = re.compile(re.escape(expando * 3) + r"([A-Z0-9_]*)")
    named_only = strictness in ("ast", "relaxed", "signature")
    out: list[str] = []

    def significant(child: SgNode) -> bool:
        if named_only and not child.is_named():
            return False
        return not (strictness in ("relaxed", "signature") and "comment" in child.kind())

    def visit(current: SgNode) -> None:
        children = current.children()
        for index, child in enumerate(children):
            found = ellipsis.fullmatch(child.text())
            if found is None:
                visit(child)
                continue
            rest = [c for c in children[index + 1 :] if significant(c)]
            before = [c for c in children[:index] if significant(c)]
            if (
                found.group(1)
                and all(ellipsis.fullmatch(c.text()) for c in rest)
                and not all(ellipsis.fullmatch(c.text()) for c in before)
            ):
                out.append(found.group(1))

    visit(node)
    return tuple(out)
