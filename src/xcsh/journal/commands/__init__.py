"""Recording what ``bash`` commands change, for ``xcsh undo`` and ``xcsh rewind``.

:class:`CommandRecorder` takes each command's creations, changes (content,
mode, symlink target) and deletions into one journal entry of kind ``bash``;
the workspace's earlier bytes are kept in a shadow
(:mod:`~xcsh.journal.commands.shadow`), what changed is found from inotify
(:mod:`~xcsh.journal.commands.notify`) or by walking the tree with fingerprints
(:mod:`~xcsh.journal.commands.tree`).
"""

from xcsh.journal.commands.notes import Recorded, background_note, recorded_note
from xcsh.journal.commands.recorder import DEFAULT_MAX_BYTES, BashRecording, CommandRecorder
from xcsh.journal.commands.tree import Difference, Sync, Tree

__all__ = [
    "DEFAULT_MAX_BYTES",
    "BashRecording",
    "CommandRecorder",
    "Difference",
    "Recorded",
    "Sync",
    "Tree",
    "background_note",
    "recorded_note",
]
