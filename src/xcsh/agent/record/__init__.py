"""The record: what outlives the process.

Session files (:mod:`~xcsh.agent.record.persistence`, their typed lines in
:mod:`~xcsh.agent.record.records`), each event's record
(:mod:`~xcsh.agent.record.recording`), the checkpoint before each user
message, rebuilding a resumed session's pending actions
(:mod:`~xcsh.agent.record.resume`) and rewinding a session
(:mod:`~xcsh.agent.record.rewind`). Above the run, whose events it records.
"""
