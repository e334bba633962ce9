"""Running tools' commands: process trees that really end, and a kernel sandbox.

- :class:`ProcessSupervisor` starts commands whose every descendant can be
  killed (timeout, cancellation, xcsh's exit).
- :func:`prepare_sandbox` turns the user's settings and the kernel's support
  into a :class:`SandboxPlan` for ``bash``: the namespace sandbox (bubblewrap,
  Landlock inside), Landlock alone, or nothing; and which environment
  variables commands inherit (:func:`command_environment`).
- :func:`find_denials` reads a confined command's output for writes the
  sandbox refused.
"""

from xcsh.sandbox.denials import Denials, find_denials
from xcsh.sandbox.environment import (
    CommandEnv,
    EnvPolicy,
    command_environment,
    withheld_note,
)
from xcsh.sandbox.namespace import NamespaceSupport, probe_namespaces
from xcsh.sandbox.policy import (
    NETWORK_ABI,
    SANDBOX_MODES,
    SETTING_KEYS,
    KernelSupport,
    SandboxKeys,
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
    make_undumpable,
)

__all__ = [
    "NETWORK_ABI",
    "SANDBOX_MODES",
    "SETTING_KEYS",
    "CommandEnv",
    "Confinement",
    "Denials",
    "EnvPolicy",
    "KernelSupport",
    "KillReport",
    "NamespaceSupport",
    "ProcessSupervisor",
    "SandboxKeys",
    "SandboxMode",
    "SandboxPlan",
    "SandboxSettings",
    "SupervisedProcess",
    "SupervisorError",
    "command_environment",
    "find_denials",
    "kernel_support",
    "make_undumpable",
    "parse_sandbox_settings",
    "plan_sandbox",
    "prepare_sandbox",
    "probe_namespaces",
    "withheld_note",
]
