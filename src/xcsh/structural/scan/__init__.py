"""Running a compiled query over a scope of files.

- :mod:`~xcsh.structural.scan.spec`: what a call matches and where (``MatchSpec``, ``ScopeSpec``);
- :mod:`~xcsh.structural.scan.scope`: which files a call covers;
- :mod:`~xcsh.structural.scan.query`: the patterns or rules compiled for the scope's languages;
- :mod:`~xcsh.structural.scan.per_file`: read, pre-filter, parse, match (and rewrite) one file;
- :mod:`~xcsh.structural.scan.embedded`: code inside HTML ``<script>``/``<style>``;
- :mod:`~xcsh.structural.scan.runner`: in-process, or on the pool;
- :mod:`~xcsh.structural.scan.pool`: the fork pool of larger scans (workers pull chunks),
  and the signal reset of a forked child;
- :mod:`~xcsh.structural.scan.warm`, :mod:`~xcsh.structural.scan.warm_cache` and
  :mod:`~xcsh.structural.scan.warm_words`: a warm session's index.

Stands on :mod:`xcsh.structural.edit` and below.
"""
