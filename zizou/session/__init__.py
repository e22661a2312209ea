"""The session kernel: `build_session` puts a session together from `RunOptions` and an
approver; a `Session` owns its state and offers the operations every front end performs."""

from zizou.session.assembly import SessionChoice, SessionRedaction, build_session, mcp_setup
from zizou.session.kernel import Session

__all__ = ["Session", "SessionChoice", "SessionRedaction", "build_session", "mcp_setup"]
