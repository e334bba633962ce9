"""One file's matches: what a scan returns for a file, and a match as the CLI prints it.

- :mod:`~xcsh.structural.matches.matching`: the picklable ``Query`` a scan runs and the
  ``Outcome`` it returns;
- :mod:`~xcsh.structural.matches.records`: match records (``--json``) from the matched nodes
  (:mod:`~xcsh.structural.matches.json_lines`: a plain pattern's JSON lines, one format each);
- :mod:`~xcsh.structural.matches.report` and :mod:`~xcsh.structural.matches.diagnostic`:
  the text output of ``ast-grep run`` and ``ast-grep scan``.

Stands on :mod:`xcsh.structural.rules`, :mod:`xcsh.structural.pattern` and
:mod:`xcsh.structural.base`.
"""
