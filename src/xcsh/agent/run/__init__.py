"""The run: one prompt's loop, its events, the steering toward ``resolve``, the prompt.

The lowest floor of the agent: :mod:`~xcsh.agent.run.loop` (``run → query →
execute``), the closed union of :mod:`~xcsh.agent.run.events`, the steering
that derives tool choice and reminders from the store, history repair and
compaction, the system prompt, its instruction files and the compact
profile, and the run's settings. Nothing here knows sessions, files on disk
or the person's approval.
"""
