"""Reading rule files the way ast-grep does: YAML 1.2's core schema.

PyYAML implements YAML 1.1, where an unquoted ``on``/``off``/``yes``/``no``/``y``
is a boolean and ``1:30`` is a number (sexagesimal); ast-grep reads YAML 1.2, where
they are strings. So ``severity: off``, ``id: on`` or ``message: no`` mean in
xcsh what they mean to ast-grep. Only ``true``/``false`` (in any of their three
spellings) are booleans; integers and floats are the core schema's.

The loader is PyYAML's safe loader with those three implicit resolvers replaced,
and one more rule of ast-grep's YAML reader (serde_yaml): a key given twice in one
mapping (two ``id:``, two ``rule:``, two ``pattern:`` under one rule) is an error
at the second one, where PyYAML keeps the last silently. Nothing else (anchors,
tags, merge keys, multi-document files) changes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import yaml

_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_MERGE = "tag:yaml.org,2002:merge"
_REPLACED = {"tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}


class RuleLoader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2 core-schema booleans, integers and floats."""

    yaml_implicit_resolvers = {  # noqa: RUF012 - PyYAML's own class attribute
        first: [(tag, regexp) for tag, regexp in resolvers if tag not in _REPLACED]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[object, object]:
        """PyYAML's mapping, refused when a key is given twice (as ast-grep refuses it).

        Raises:
            yaml.constructor.ConstructorError: a key given twice; its mark is the
                second one's line and column.
        """
        seen: dict[object, yaml.Node] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE:
                continue
            key = self.construct_object(key_node)
            if key in seen:
                first = seen[key].start_mark
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"the key `{key}` is given twice in one mapping (first at line "
                    f"{first.line + 1}); ast-grep refuses that, keep one",
                    key_node.start_mark,
                )
            seen[key] = key_node
        return super().construct_mapping(node, deep=deep)


RuleLoader.add_implicit_resolver("tag:yaml.org,2002:bool", _BOOL, list("tTfF"))
RuleLoader.add_implicit_resolver("tag:yaml.org,2002:int", _INT, list("-+0123456789"))
RuleLoader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+.0123456789"))


def _int(loader: yaml.SafeLoader, node: yaml.Node) -> int:
    text = str(loader.construct_scalar(node))  # type: ignore[arg-type]
    if text.startswith("0o"):
        return int(text[2:], 8)
    return int(text, 0) if text.startswith("0x") else int(text, 10)


RuleLoader.add_constructor("tag:yaml.org,2002:int", _int)


def load(text: str) -> object:
    """The first document of ``text`` (``None`` when empty).

    Raises:
        yaml.YAMLError: ``text`` is not valid YAML.
    """
    return yaml.load(text, Loader=RuleLoader)


def load_all(text: str) -> Iterator[object]:
    """Every document of ``text``, in order.

    Raises:
        yaml.YAMLError: ``text`` is not valid YAML (raised while iterating).
    """
    return yaml.load_all(text, Loader=RuleLoader)


def load_all_at(text: str) -> list[tuple[int, object]]:
    """Every document of ``text``, each with the line (counted from 1) it starts on.

    A document starts at its ``---`` line, or at its first content without one.

    Raises:
        yaml.YAMLError: ``text`` is not valid YAML.
    """
    reader = RuleLoader(text)
    try:
        found = []
        while reader.check_node():
            event = reader.peek_event()  # type: ignore[no-untyped-call]
            line = event.start_mark.line + 1  # its `---`, else its first content
            node = reader.get_node()
            assert node is not None  # check_node said one follows
            found.append((line, reader.construct_document(node)))
        return found
    finally:
        reader.dispose()


__all__ = ["RuleLoader", "load", "load_all", "load_all_at"]
