"""``llama-server`` on a free loopback port, started and stopped around the task set."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType

from model_e2e.parts import PartError


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class LlamaServer:
    """``llama-server -m MODEL --jinja`` on 127.0.0.1, as a context manager.

    Args:
        binary: the ``llama-server`` executable.
        model: the GGUF file.
        log_path: where the server's output goes.
        context: context size in tokens (``-c``).
        threads: CPU threads (``-t``).
        niceness: the server runs under ``nice -n NICENESS`` (0: as the harness), so
            other work on shared cores keeps moving.
    """

    def __init__(
        self,
        binary: Path,
        model: Path,
        log_path: Path,
        *,
        context: int = 16384,
        threads: int = 2,
        niceness: int = 10,
    ) -> None:
        self.port = free_port()
        self.log_path = log_path
        self.command = [
            *(["nice", "-n", str(niceness)] if niceness else []),
            str(binary), "-m", str(model), "--jinja", "--host", "127.0.0.1",
            "--port", str(self.port), "-c", str(context), "-t", str(threads),
            "--parallel", "1", "--no-webui",
        ]  # fmt: skip
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> LlamaServer:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        out = self.log_path.open("wb")
        self._process = subprocess.Popen(self.command, stdout=out, stderr=subprocess.STDOUT)
        out.close()
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise PartError(f"llama-server exited at start; see {self.log_path}")
            try:
                with urllib.request.urlopen(self.url("/health"), timeout=5) as answer:
                    if answer.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.5)
        self.stop()
        raise PartError(f"llama-server did not become ready in 300 s; see {self.log_path}")

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def url(self, path: str) -> str:
        """``http://127.0.0.1:<port><path>``."""
        return f"http://127.0.0.1:{self.port}{path}"

    def props(self) -> dict[str, object]:
        """The server's ``/props`` (context size, chat template, model path)."""
        with urllib.request.urlopen(self.url("/props"), timeout=10) as answer:
            value = json.load(answer)
        return value if isinstance(value, dict) else {}

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 10 s."""
        if self._process is None or self._process.poll() is not None:
            return
        self._process.send_signal(signal.SIGTERM)
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
