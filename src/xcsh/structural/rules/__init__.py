"""YAML rules, as ``ast-grep scan`` reads them: loading, checking, compiling, evaluating.

Reading a rule is one pipeline (run by :mod:`~xcsh.structural.rules.compile`'s
:func:`parse_rules`, :func:`compile_rule`, :func:`load_rule_file`), each stage a
module whose typed output the next takes:

1. :mod:`~xcsh.structural.rules.read`: text -> YAML documents
   (:mod:`~xcsh.structural.rules.loader`, YAML 1.2 as ast-grep reads it) -> a typed
   :class:`~xcsh.structural.rules.document.RuleDocument` (its rule objects:
   :mod:`~xcsh.structural.rules.model`, read by :mod:`~xcsh.structural.rules.schema`
   after :mod:`~xcsh.structural.rules.prune` leaves out the keys ast-grep ignores);
2. :mod:`~xcsh.structural.rules.check`: -> a ``CheckedRule`` (metavariable names:
   :mod:`~xcsh.structural.rules.names`; pattern kinds:
   :mod:`~xcsh.structural.rules.kinds`; ast-grep's own check:
   :mod:`~xcsh.structural.rules.validate`);
3. :mod:`~xcsh.structural.rules.compile`: -> a :class:`CompiledRule`, what it matches
   (:class:`~xcsh.structural.rules.matcher.RuleMatcher`, with the text a file must
   hold from :mod:`~xcsh.structural.rules.tokens`) and what it adds to each match
   (:class:`~xcsh.structural.rules.extras.RuleExtras`).

Then :mod:`~xcsh.structural.rules.evaluate` and :mod:`~xcsh.structural.rules.labels`
evaluate a match: transforms, rewriters, the fix range, the message and labels;
:mod:`~xcsh.structural.rules.project` reads a project's ``sgconfig.yml``.
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
