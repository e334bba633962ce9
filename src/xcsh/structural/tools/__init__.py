"""The tool front: the model-facing ``ast_grep`` and ``ast_edit`` tools.

- :mod:`~xcsh.structural.tools.ast_tools`: the tools, their parameters and labels;
- :mod:`~xcsh.structural.tools.details`: the typed details of their results;
- :mod:`~xcsh.structural.tools.edit_text` and :mod:`~xcsh.structural.tools.edit_action`:
  the preview as the model reads it and the pending action it pushes.

Stands on :mod:`xcsh.structural.engine`; loaded only when a tool is asked for.
"""
