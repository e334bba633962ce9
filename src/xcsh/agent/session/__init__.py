"""The session: what front ends hold.

:class:`~xcsh.agent.session.agent_session.AgentSession` keeps the history and
runs the loop; :mod:`~xcsh.agent.session.config` is how one is set up besides
its provider, tools, folder and store; :mod:`~xcsh.agent.session.pending` is
its pending actions between runs. The top floor: it composes the run, the
record and the policy.
"""
