"""The project's check, run on a staged copy of the workspace with a preview applied.

- :class:`CheckSettings` / :func:`read_check_settings` (and :func:`with_project`):
  what runs (``check``), for how long, when, and whether it gates apply.
- :class:`Checker`: stages a preview's files over the workspace (an overlay,
  else a copy), runs the check there under the bash sandbox's rules, and
  compares it with the baseline on the unchanged tree
  (:class:`~xcsh.pending.CheckVerdict`).
"""

from xcsh.checks.checker import STAGING_ENV, Checker
from xcsh.checks.compare import CheckRun, failing_tests, new_lines, verdict
from xcsh.checks.settings import (
    CHECK_KEYS,
    DEFAULT_TIMEOUT,
    HOW_TO_SET,
    CheckKeys,
    CheckSettings,
    read_check_settings,
    read_project_settings,
    with_project,
)
from xcsh.checks.stage import StagedTree, copy_tree, staged_tree

__all__ = [
    "CHECK_KEYS",
    "DEFAULT_TIMEOUT",
    "HOW_TO_SET",
    "STAGING_ENV",
    "CheckKeys",
    "CheckRun",
    "CheckSettings",
    "Checker",
    "StagedTree",
    "copy_tree",
    "failing_tests",
    "new_lines",
    "read_check_settings",
    "read_project_settings",
    "staged_tree",
    "verdict",
    "with_project",
]
