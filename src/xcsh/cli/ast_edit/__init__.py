"""``xcsh ast-edit``: preview a structural rewrite, decide on it, apply it through ``resolve``.

- :mod:`~xcsh.cli.ast_edit.args`: its options and exit codes;
- :mod:`~xcsh.cli.ast_edit.command`: the command (preview, pending action, decision);
- :mod:`~xcsh.cli.ast_edit.preview` and :mod:`~xcsh.cli.ast_edit.check`: computing the
  preview over several paths, and the project's check on it;
- :mod:`~xcsh.cli.ast_edit.output`: standard output and ``--json``;
- :mod:`~xcsh.cli.ast_edit.ask`: the question (and the review change by change);
- :mod:`~xcsh.cli.ast_edit.apply`: resolving what was decided, with signals held.

``xcsh scan --fix`` previews and applies through the same command.
"""
