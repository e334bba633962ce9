"""The user-state folder, ``$XCSH_HOME`` (SPEC §5a).

Kept so ``xcsh.plugins.home.xcsh_home`` stays importable; the one
implementation is :func:`xcsh.fs.xcsh_home`.
"""

from __future__ import annotations

from xcsh.fs.home import xcsh_home

__all__ = ["xcsh_home"]
