"""Evaluating a YAML rule's match: transforms, rewriters, the fix range, the message.

ast-grep-py evaluates the rule and its native transforms; the ``rewrite``
transform with the rule's rewriters, the fix's range and the message are here.
"""

from __future__ import annotations

from ast_grep_py import SgNode

from xcsh.fs import detect_newline
from xcsh.structural.pattern.rewrite import (
    Template,
    capture_key,
    expand_template,
    indent_at,
    reindent,
)
from xcsh.structural.rules.document import Fix, RewriteTransform
from xcsh.structural.rules.extras import Rewriter, RuleExtras


def interpolate(rule: RuleExtras, node: SgNode, text: str, transformed: dict[str, str]) -> str:
    """A rule's ``message`` for the match ``node`` in ``text``.

    It is expanded as a fix template is, as the CLI does: a metavariable the match
    did not bind becomes ``""``, and the lines after the first are indented like
    the match.
    """
    template = rule.message_template
    if template is None:
        return rule.message
    values = capture_spans(node, template)
    values.update({name: value for name, value in transformed.items() if name in values})
    return expand_template(template, text, node.range().start.index, values, "\n")


def rule_template(rule: RuleExtras) -> Template:
    """The parsed ``fix`` template of ``rule`` (which must have one)."""
    assert rule.template is not None
    return rule.template


def transformed_values(
    node: SgNode,
    rule: RuleExtras | Rewriter,
    text: str,
    rewriters: dict[str, Rewriter] | None = None,
) -> dict[str, str]:
    """The values of a rule's transforms for one match, by name.

    ast-grep-py evaluates the native ones; the ``rewrite`` transforms are evaluated
    here with the rule's rewriters (or ``rewriters`` when given).
    """
    out: dict[str, str] = {}
    if rewriters is None:
        rewriters = rule.rewriters if isinstance(rule, RuleExtras) else {}
    for name in rule.native:
        value = node.get_transformed(name)
        if value is not None:
            out[name] = value
    for spec in rule.rewrites:
        value = _rewrite(node, spec, rewriters, text)
        if value is not None:
            out[spec.name] = value
    return out


def _rewrite(
    node: SgNode, spec: RewriteTransform, rewriters: dict[str, Rewriter], text: str
) -> str | None:
    """The ``rewrite`` transform: the source capture with every rewriter match replaced.

    As ast-grep does: in each captured node, nodes are visited in source order
    (outer first); the first rewriter (in the order listed) matching a node
    replaces it with its fix, and what is inside is not visited again. A
    ``$$$`` source is rewritten node by node and joined by ``joinBy`` (without
    it, the text between the nodes is kept; with it, only the rewriters' edits are
    joined and the nodes no rewriter matched are left out).
    """
    source = spec.source
    name = source.lstrip("$")
    if source.startswith("$$$"):
        nodes = node.get_multiple_matches(name)
    else:
        one = node.get_match(name)
        nodes = [one] if one is not None else []
    if not nodes:
        return None
    chosen = [rewriters[rid] for rid in spec.rewriters if rid in rewriters]
    newline = detect_newline(text)
    join_by = spec.join_by
    if join_by is not None:  # only the rewriters' edits, joined; the rest is dropped
        edits = _edits(nodes, chosen, rewriters, text, newline, node)
        return join_by.join(replacement for _, _, replacement in edits)
    start = nodes[0].range().start.index
    end = nodes[-1].range().end.index
    # The result is source text: de-indented as a captured text is, before insertion.
    parts: list[str] = []
    cursor = start
    for hit_start, hit_end, replacement in _edits(nodes, chosen, rewriters, text, newline, node):
        parts += (text[cursor:hit_start], replacement)
        cursor = hit_end
    parts.append(text[cursor:end])
    return reindent("".join(parts), indent_at(text, start), "")


def _edits(
    nodes: list[SgNode],
    rewriters: list[Rewriter],
    every: dict[str, Rewriter],
    text: str,
    newline: str,
    outer: SgNode,
) -> list[tuple[int, int, str]]:
    """The rewriters' edits inside ``nodes``: ``(start, end, new text)`` in source order.

    None overlap: a node inside one already rewritten is left alone, and of two
    rewriters matching one node the first listed wins.

    As in the CLI, a rewriter starts from the captures of the rule's match
    (``outer``): a metavariable both bind must capture the same text, and one
    the rewriter's match does not bind takes what the rule's match captured.
    """
    found: list[tuple[int, int, int, SgNode]] = []
    for order, rewriter in enumerate(rewriters):
        for source in nodes:
            for hit in source.find_all(rewriter.config):
                if not _agrees(hit, outer, rewriter):
                    continue
                rng = hit.range()
                found.append((rng.start.index, -rng.end.index, order, hit))
    found.sort(key=lambda f: (f[0], f[1], f[2]))
    edits: list[tuple[int, int, str]] = []
    cursor = -1
    for hit_start, neg_end, order, hit in found:
        if hit_start < cursor:
            continue  # inside a node already rewritten, or a later rewriter of the same node
        rewriter = rewriters[order]
        template = rewriter.template
        values: dict[str, tuple[int, int] | str | None] = dict(capture_spans(hit, template))
        unbound = [name for name, value in values.items() if value is None]
        if unbound:
            around = capture_spans(outer, template)
            values.update({name: around[name] for name in unbound})
        values.update(transformed_values(hit, rewriter, text, every))
        edits.append(
            (hit_start, -neg_end, expand_template(template, text, hit_start, values, newline))
        )
        cursor = -neg_end
    return edits


def _agrees(hit: SgNode, outer: SgNode, rewriter: Rewriter) -> bool:
    """Whether a rewriter's match agrees with the rule's match (``outer``).

    Each metavariable both bind must hold the same text: as in the CLI, a rewriter
    starts from the rule's captures, so its `$A` only matches what the rule's `$A`
    captured.
    """
    for name in rewriter.names:
        mine = hit.get_match(name)
        if mine is not None:
            theirs = outer.get_match(name)
            if theirs is not None and theirs.text() != mine.text():
                return False
    for name in rewriter.multi:
        many = hit.get_multiple_matches(name)
        if many:
            before = outer.get_multiple_matches(name)
            if before and [n.text() for n in before] != [n.text() for n in many]:
                return False
    return True


def expanded_range(node: SgNode, fix: Fix | None) -> tuple[SgNode, SgNode]:
    """The first and last node a fix replaces.

    That is the match, widened over the siblings before it that match
    ``expandStart`` and after it that match ``expandEnd``.
    """
    first = last = node
    if fix is None:
        return first, last
    if fix.expand_start is not None and fix.expand_start.parts:
        while (prev := first.prev()) is not None and prev.matches(**fix.expand_start.config):
            first = prev
    if fix.expand_end is not None and fix.expand_end.parts:
        while (nxt := last.next()) is not None and nxt.matches(**fix.expand_end.config):
            last = nxt
    return first, last


def capture_spans(node: SgNode, template: Template) -> dict[str, tuple[int, int] | str | None]:
    """What each metavariable of ``template`` captured in the match ``node``.

    Each is a code-point ``(start, end)`` range or ``None``, keyed as
    :func:`xcsh.structural.pattern.rewrite.capture_key` keys them (``$$$A`` apart from ``$A``).
    """
    out: dict[str, tuple[int, int] | str | None] = {}
    for var in template.variables:
        if var.multi:
            nodes = node.get_multiple_matches(var.name)
            out[capture_key(var)] = (
                (nodes[0].range().start.index, nodes[-1].range().end.index) if nodes else None
            )
        else:
            captured = node.get_match(var.name)
            out[var.name] = (
                None
                if captured is None
                else (captured.range().start.index, captured.range().end.index)
            )
    return out
