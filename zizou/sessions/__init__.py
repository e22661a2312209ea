"""Crash-safe sessions: append-only JSONL files under `.zizou/sessions/`."""

from zizou.sessions.store import LoadedSession, SessionStore, SessionSummary, SessionWriter

__all__ = ["LoadedSession", "SessionStore", "SessionSummary", "SessionWriter"]
