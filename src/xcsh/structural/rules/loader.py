"""Reading rule files the way ast-grep does: YAML 1.2's core schema.

PyYAML implements YAML 1.1, where an unquoted ``on``/``off``/``yes``/``no``/``y``
is a boolean and ``1:30`` is a number (sexagesimal); ast-grep reads YAML 1.2, where
they are strings. So ``severity: off``, ``id: on`` or ``message: no`` mean in
xcsh what they mean to ast-grep. Only ``true``/``false`` (in any of their three
spellings) are booleans; integers and floats are the core schema's.

The loader is PyYAML's safe loader with those three implicit resolvers replaced;
nothing else (anchors, tags, multi-document files) changes.
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
_REPLACED = {"tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}


class RuleLoader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2 core-schema booleans, integers and floats."""

    yaml_implicit_resolvers = {  # noqa: RUF012 - PyYAML's own class attribute
        first: [(tag, regexp) for tag, regexp in resolvers if tag not in _REPLACED]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }


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


__all__ = ["RuleLoader", "load", "load_all"]
