"""The structural engine's shared vocabulary: the floor every phase stands on.

- :mod:`~xcsh.structural.base.errors`: the typed errors, worded by each front end;
- :mod:`~xcsh.structural.base.languages`: ast-grep's languages, aliases and extensions;
- :mod:`~xcsh.structural.base.strictness`: the strictness levels;
- :mod:`~xcsh.structural.base.matcher`: the :class:`Matcher` protocol a query runs per file;
- :mod:`~xcsh.structural.base.results` and :mod:`~xcsh.structural.base.diff`: typed
  matches, previews and their diffs.

Nothing here imports another part of :mod:`xcsh.structural`.
"""
