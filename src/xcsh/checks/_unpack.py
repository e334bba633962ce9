"""Lay staged files over the workspace from inside the check's namespace, then run the check.

Run as ``python -I _unpack.py ARCHIVE ROOT -- COMMAND...`` (standard library only)
inside the overlay's mount namespace, where ROOT is the overlay: each file of
ARCHIVE is written under ROOT (so into the overlay's private upper layer,
never the workspace), refusing any path that leads out of ROOT; then COMMAND
replaces this process. ARCHIVE holds, per file, the length of its relative
path (4 bytes, big-endian), the path (UTF-8), the length of its content
(8 bytes) and the content.
"""

import os
import sys


def main(argv: list[str]) -> None:
    archive, root, dash, *command = argv
    if dash != "--" or not command:
        sys.exit("usage: _unpack.py ARCHIVE ROOT -- COMMAND...")
    real_root = os.path.realpath(root)
    with open(archive, "rb") as fh:
        data = fh.read()
    at = 0
    folders: set[str] = set()
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
    while at < len(data):
        size = int.from_bytes(data[at : at + 4], "big")
        rel = data[at + 4 : at + 4 + size].decode("utf-8")
        at += 4 + size
        length = int.from_bytes(data[at : at + 8], "big")
        content = data[at + 8 : at + 8 + length]
        at += 8 + length
        dest = os.path.join(real_root, rel)
        folder = os.path.dirname(dest)
        if folder not in folders:
            os.makedirs(folder, exist_ok=True)
            parent = os.path.realpath(folder)
            if parent != real_root and not parent.startswith(real_root + os.sep):
                sys.exit(f"xcsh: cannot stage {rel!r}: its folder leads out of the workspace")
            folders.add(folder)
        try:
            fd = os.open(dest, flags, 0o644)
        except OSError:  # a symlink in the workspace: the staged file replaces the link
            os.unlink(dest)
            fd = os.open(dest, flags, 0o644)
        with os.fdopen(fd, "wb") as out:
            out.write(content)
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
