"""The policy: the person's say over what the model's tool calls may do.

The approval rules per tool and per command prefix
(:mod:`~xcsh.agent.policy.tools`, read from settings.toml by
:mod:`~xcsh.agent.policy.settings`), bash commands read with tree-sitter's bash
grammar (:mod:`~xcsh.agent.policy.shell`), and the person's answer to a model's
``resolve`` apply (:mod:`~xcsh.agent.policy.approval`). Beside the run: neither
imports the other.
"""
