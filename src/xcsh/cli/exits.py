"""The exit codes the commands share (``xcsh ast-grep``, ``ast-edit``, ``scan``, ...)."""

EXIT_OK = 0
"""Done: matches printed, or an edit previewed, applied or discarded."""
EXIT_NO_MATCH = 1
"""The pattern matched nothing (no replacement for ``ast-edit``)."""
EXIT_BAD_INPUT = 2
"""Bad input: a flag, pattern, language or path, including a scope with no file left
to search (PATH, --globs and -l exclude everything); the message is on stderr."""
EXIT_APPLY_FAILED = 3
"""``ast-edit`` only: applying failed (a file changed since the preview, a write
failed); nothing was written, earlier files were restored."""
EXIT_INTERRUPTED = 130
"""Ctrl-C (128 + SIGINT): ``ast-edit`` discards the edit; nothing was written."""
EXIT_BROKEN_PIPE = 141
"""Standard output closed early (128 + SIGPIPE), as the ``xcsh`` dispatcher reports it.
``ast-edit`` returns it only when nothing was applied (see its module docstring)."""
