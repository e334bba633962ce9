"""The project's check, run on a staged copy of the workspace with a preview applied.

- :class:`CheckSettings` / :func:`read_check_settings` (and :func:`with_project`):
  what runs (``check``), for how long, when, and whether it gates apply.
- :class:`Checker`: stages a preview's files over the workspace (an overlay,
  else a copy), runs the check there under the bash sandbox's rules, and
  compares it with the baseline on the unchanged tree
  (:class:`~xcsh.pending.CheckVerdict`).
"""

from typing import TYPE_CHECKING

from xcsh.core.lazy import lazy_exports

if TYPE_CHECKING:
    from xcsh.checks.checker import STAGING_ENV, Checker
    from xcsh.checks.compare import CheckRun, failing_tests, new_lines, verdict
    from xcsh.checks.keys import CHECK_KEYS, PROJECT_SETTINGS, settings_to_read
    from xcsh.checks.settings import (
        DEFAULT_TIMEOUT,
        CheckKeys,
        CheckSettings,
        how_to_set,
        read_check_settings,
        read_project_settings,
        with_project,
    )
    from xcsh.checks.stage import StagedTree, copy_tree, staged_tree

# Each name is imported from its module when first used, so a command that only asks
# whether a check could apply (xcsh ast-edit without one) loads neither pydantic nor
# the sandbox.
__getattr__ = lazy_exports(
    __name__,
    {
        "xcsh.checks.checker": ("STAGING_ENV", "Checker"),
        "xcsh.checks.compare": ("CheckRun", "failing_tests", "new_lines", "verdict"),
        "xcsh.checks.keys": ("CHECK_KEYS", "PROJECT_SETTINGS", "settings_to_read"),
        "xcsh.checks.settings": (
            "DEFAULT_TIMEOUT",
            "CheckKeys",
            "CheckSettings",
            "how_to_set",
            "how_to_set",
            "read_check_settings",
            "read_project_settings",
            "with_project",
        ),
        "xcsh.checks.stage": ("StagedTree", "copy_tree", "staged_tree"),
    },
)

__all__ = [
    "CHECK_KEYS",
    "DEFAULT_TIMEOUT",
    "PROJECT_SETTINGS",
    "STAGING_ENV",
    "CheckKeys",
    "CheckRun",
    "CheckSettings",
    "Checker",
    "StagedTree",
    "copy_tree",
    "failing_tests",
    "how_to_set",
    "new_lines",
    "read_check_settings",
    "read_project_settings",
    "settings_to_read",
    "staged_tree",
    "verdict",
    "with_project",
]
