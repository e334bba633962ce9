"""Patterns and rewrite templates, compiled and checked before any file is read.

- :mod:`~xcsh.structural.pattern.compile`: a ``-p`` pattern compiled (``CompiledPattern``);
- :mod:`~xcsh.structural.pattern.checks`: is it safe, and can it match at all;
- :mod:`~xcsh.structural.pattern.tokens`: what a compiled pattern knows about itself;
- :mod:`~xcsh.structural.pattern.rewrite`: ``-r``/``fix`` templates, expanded and re-indented.

Imports only :mod:`xcsh.structural.base`.
"""
