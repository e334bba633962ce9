"""The real small repositories the tasks run on: pure-Python packages' sdists under git.

``inflection`` 0.5.1 (one module of 426 lines and a pytest suite of 431, the
package the rename was tuned on), and for the wider task set two the prompts
were never tuned on: ``parse`` 1.20.2 (one module of 1,100 lines, seven test
files) and ``isodate`` 0.7.2 (ten modules under ``src/``, six test files). None
has a dependency its tests need. Each source package is downloaded once into
the cache; each run gets a fresh copy committed to a new git repository, so a
check can compare the files on disk with ``git diff`` and ``git status``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

from model_e2e.parts import PartError, cache_root

PACKAGE = "inflection"
VERSION = "0.5.1"
MODULE = "inflection/__init__.py"
TESTS = "test_inflection.py"


@dataclass(frozen=True)
class Package:
    """A package whose sdist a task runs on.

    Attributes:
        name: its name on the registry (and the run folder's name).
        version: the version pinned.
        tests: the test files or folder, relative to the sdist's top.
        src: the folder to put on ``PYTHONPATH`` for its tests (``""``: the top).
    """

    name: str
    version: str
    tests: str
    src: str = ""

    def test_command(self) -> str:
        """The shell command that runs its tests at the top of a copy (a project check)."""
        path = f"PYTHONPATH={self.src} " if self.src else ""
        return f"{path}{sys.executable} -m pytest -q -p no:cacheprovider -p no:asyncio {self.tests}"


INFLECTION = Package(PACKAGE, VERSION, TESTS)
PARSE = Package("parse", "1.20.2", "tests")
ISODATE = Package("isodate", "0.7.2", "tests", src="src")


def sdist(root: Path | None = None, package: Package = INFLECTION) -> Path:
    """The package's source archive in the cache, downloaded when missing.

    Raises:
        PartError: pip could not download it.
    """
    downloads = (root or cache_root()) / "downloads" / "projects"
    archive = downloads / f"{package.name}-{package.version}.tar.gz"
    if archive.is_file():
        return archive
    downloads.mkdir(parents=True, exist_ok=True)
    pinned = f"{package.name}=={package.version}"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"),
            *("--no-binary", ":all:", "-d", str(downloads), pinned),
        ],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0 or not archive.is_file():
        raise PartError(f"pip could not download {pinned}: {done.stderr[-400:]}")
    return archive


def git(repo: Path, *args: str) -> str:
    """``git`` in ``repo`` with a fixed identity; its stdout.

    Raises:
        subprocess.CalledProcessError: git failed.
    """
    env = {
        "GIT_AUTHOR_NAME": "e2e",
        "GIT_AUTHOR_EMAIL": "e2e@localhost",
        "GIT_COMMITTER_NAME": "e2e",
        "GIT_COMMITTER_EMAIL": "e2e@localhost",
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


def fresh_repo(dest: Path, archive: Path) -> Path:
    """Unpack ``archive`` into ``dest`` (replaced) and commit it; returns ``dest``."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    unpacked = dest.with_name(dest.name + ".unpack")
    shutil.rmtree(unpacked, ignore_errors=True)
    with tarfile.open(archive) as tar:
        tar.extractall(unpacked, filter="data")
    (top,) = list(unpacked.iterdir())
    top.rename(dest)
    unpacked.rmdir()
    for junk in dest.rglob("__pycache__"):
        shutil.rmtree(junk)
    for junk in dest.rglob("*.egg-info"):
        shutil.rmtree(junk)
    (dest / ".gitignore").write_text("__pycache__/\n*.egg-info/\n.pytest_cache/\n")
    git(dest, "init", "--quiet", "--initial-branch=main")
    git(dest, "add", "-A")
    git(dest, "commit", "--quiet", "-m", f"{PACKAGE} {VERSION}")
    return dest


def changed_files(repo: Path) -> list[str]:
    """Paths git sees as changed or new since the commit (``git status --porcelain``)."""
    lines = git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()
    return sorted(line[3:] for line in lines if line.strip())


def run_tests(repo: Path, package: Package = INFLECTION) -> tuple[bool, str]:
    """Import the package and run its tests with this interpreter: (passed, last line)."""
    done = subprocess.run(
        package.test_command(),
        shell=True,
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = done.stdout.strip().splitlines()
    return done.returncode == 0, (lines[-1] if lines else done.stderr.strip()[-200:])
