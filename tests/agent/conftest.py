"""Fixtures for the agent tests; the tools and the harness live in ``agent_harness``."""

from agent_harness import make_harness

__all__ = ["make_harness"]
