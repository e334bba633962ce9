"""Rewriting one file, and writing a previewed edit.

- :mod:`~xcsh.structural.edit.candidates` and :mod:`~xcsh.structural.edit.pattern_edit`:
  the changes one op makes in one file; :mod:`~xcsh.structural.edit.pattern_records`:
  their JSON lines, kept as numbers until printed;
- :mod:`~xcsh.structural.edit.scan_edit`: a file's replacements, their overlaps, the new text;
- :mod:`~xcsh.structural.edit.syntax_check`: whether the rewritten file still parses;
- :mod:`~xcsh.structural.edit.apply`: writing exactly a preview's bytes, all or nothing.

Stands on :mod:`xcsh.structural.matches` and below; the scan calls it per file.
"""
