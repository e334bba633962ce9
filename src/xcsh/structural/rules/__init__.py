"""YAML rules, as ``ast-grep scan`` reads them: loading, checking, compiling, evaluating.

The phases, each a module:

- :mod:`~xcsh.structural.rules.loader` reads YAML as ast-grep does (YAML 1.2 scalars);
- :mod:`~xcsh.structural.rules.adapter` turns one parsed document (or a tool's ``rule``
  argument) into the typed rule of :mod:`~xcsh.structural.rules.document` and
  :mod:`~xcsh.structural.rules.model`, checking it key
  by key so that each problem names its YAML path
  (:mod:`~xcsh.structural.rules.schema`, :mod:`~xcsh.structural.rules.prune`);
- :mod:`~xcsh.structural.rules.compile` compiles the typed rule into a
  :class:`CompiledRule` (with :mod:`~xcsh.structural.rules.parts`,
  :mod:`~xcsh.structural.rules.names` and :mod:`~xcsh.structural.rules.tokens`);
- :mod:`~xcsh.structural.rules.evaluate` and :mod:`~xcsh.structural.rules.labels`
  evaluate a match: transforms, rewriters, the fix range, the message and labels;
- :mod:`~xcsh.structural.rules.project` reads a project's ``sgconfig.yml``.
"""

from xcsh.structural.rules.compile import (
    CompiledRule,
    based,
    compile_rule,
    load_rule_file,
    parse_rules,
    rule_from_parameter,
)
from xcsh.structural.rules.schema import RuleError, RuleWarning

__all__ = [
    "CompiledRule",
    "RuleError",
    "RuleWarning",
    "based",
    "compile_rule",
    "load_rule_file",
    "parse_rules",
    "rule_from_parameter",
]
