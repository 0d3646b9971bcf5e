"""A session that ends empties its state, whatever still refers to the session object."""

from streamlit.runtime.app_session import AppSession
from streamlit.runtime.state.session_state import SessionState

from ui.hosting import forget_ended_sessions


def test_a_shut_down_session_keeps_no_data(monkeypatch):
    calls = []

    def original(self):  # stands in for Streamlit's own shutdown
        calls.append(self)

    monkeypatch.setattr(AppSession, "shutdown", original)
    assert forget_ended_sessions() is True
    assert forget_ended_sessions() is False  # installed once

    class Session:  # what the patched shutdown reads of a session
        _session_state = SessionState()

    session = Session()
    state = session._session_state
    state["table"] = list(range(1000))
    state._new_widget_state.widget_metadata["w"] = object()  # holds a callback's globals
    assert "table" in state
    AppSession.shutdown(session)
    assert state._new_widget_state.widget_metadata == {}
    assert calls == [session]  # Streamlit's shutdown still runs, first
    assert "table" not in state and len(list(state.filtered_state)) == 0


def test_departed_sessions_past_their_time_are_shut_down():
    from streamlit.runtime.memory_session_storage import MemorySessionStorage
    from streamlit.runtime.session_manager import SessionInfo

    from ui.hosting import end_expired_sessions

    class Session:
        def __init__(self, name):
            self.id = name
            self.closed = False

        def shutdown(self):
            self.closed = True

    class Manager:
        _session_storage = MemorySessionStorage(ttl_seconds=0)  # expired at once

    gone = Session("gone")
    Manager._session_storage.save(SessionInfo(client=None, session=gone, script_run_count=1))
    assert end_expired_sessions(Manager()) == 1
    assert gone.closed
    assert Manager._session_storage.list() == []
    assert end_expired_sessions(Manager()) == 0
    assert end_expired_sessions(object()) == 0  # a manager without a store: nothing to do
