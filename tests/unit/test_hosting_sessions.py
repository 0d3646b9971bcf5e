"""A session that ends empties its state, whatever still refers to the session object."""

import pytest
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.state.session_state import SessionState

from ui.common.hosting import forget_ended_sessions


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

    from ui.common.hosting import end_expired_sessions

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


def test_ending_many_sessions_keeps_a_download_just_made_for_another_visitor():
    """A file made on a download click belongs to no session; Streamlit's media store drops
    such a file on its second pass, and every session shutdown runs one pass. Ending three
    sessions in one housekeeping pass must not delete it before the browser fetches it."""
    from streamlit.runtime.caching.ttl_cache import TTLCache
    from streamlit.runtime.media_file_manager import MediaFileManager
    from streamlit.runtime.media_file_storage import MediaFileStorageError
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
    from streamlit.runtime.memory_session_storage import MemorySessionStorage
    from streamlit.runtime.session_manager import SessionInfo

    from ui.common.hosting import end_expired_sessions

    media = MediaFileManager(MemoryMediaFileStorage("/media"))
    url = media.add(
        b"report", "text/html", "coords", file_name="r.html", is_for_static_download=True
    )
    file_id = url.rsplit("/", 1)[-1].split(".")[0]
    media.clear_session_refs()  # what a deferred download leaves: a file no session shows

    class Session:  # shuts down as Streamlit's does: one media pass each
        def __init__(self, number):
            self.id = f"departed-{number}"

        def shutdown(self):
            media.remove_orphaned_files()

    clock = [0.0]

    class Manager:
        _session_storage = MemorySessionStorage(ttl_seconds=60)

    Manager._session_storage._cache = TTLCache(maxsize=100, ttl=60, timer=lambda: clock[0])

    def three_departed():
        for number in range(3):
            info = SessionInfo(client=None, session=Session(number), script_run_count=1)
            Manager._session_storage.save(info)
        clock[0] += 61  # their time to reconnect has passed

    three_departed()
    assert end_expired_sessions(Manager(), media) == 3
    media.remove_orphaned_files()  # the pass housekeeping runs itself: marks the file only
    assert media._storage.get_file(file_id).content == b"report"
    assert "remove_orphaned_files" not in vars(media)  # the store's own pass is back
    three_departed()
    end_expired_sessions(Manager())  # without holding the pass off: deleted
    with pytest.raises(MediaFileStorageError):
        media._storage.get_file(file_id)
