"""Running tools' commands: process trees that really end, and a kernel sandbox.

- :class:`ProcessSupervisor` starts commands whose every descendant can be
  killed (timeout, cancellation, xcsh's exit).
- :func:`prepare_sandbox` turns the user's settings and the kernel's support
  into a :class:`SandboxPlan` for ``bash`` (Landlock confinement or not).
- :func:`find_denials` reads a confined command's output for writes the
  sandbox refused.
"""

from xcsh.sandbox.denials import Denials, find_denials
from xcsh.sandbox.policy import (
    NETWORK_ABI,
    SANDBOX_MODES,
    SETTING_KEYS,
    KernelSupport,
    SandboxMode,
    SandboxPlan,
    SandboxSettings,
    kernel_support,
    parse_sandbox_settings,
    plan_sandbox,
    prepare_sandbox,
)
from xcsh.sandbox.supervisor import (
    Confinement,
    KillReport,
    ProcessSupervisor,
    SupervisedProcess,
    SupervisorError,
)

__all__ = [
    "NETWORK_ABI",
    "SANDBOX_MODES",
    "SETTING_KEYS",
    "Confinement",
    "Denials",
    "KernelSupport",
    "KillReport",
    "ProcessSupervisor",
    "SandboxMode",
    "SandboxPlan",
    "SandboxSettings",
    "SupervisedProcess",
    "SupervisorError",
    "find_denials",
    "kernel_support",
    "parse_sandbox_settings",
    "plan_sandbox",
    "prepare_sandbox",
]
