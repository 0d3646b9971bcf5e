"""The server of Privacy Workbench: the app of ``app.py`` with the guard and housekeeping
of :mod:`ui.common.hosting`. ``make run`` and the container start it with ``streamlit run
serve.py``; ``streamlit run app.py`` still works, without them."""

import streamlit as st
from starlette.middleware import Middleware
from streamlit.runtime.pages_manager import PagesManager

from ui.common.hosting import ServerGuard, lifespan

# app.py declares its pages with st.navigation. Streamlit would otherwise take the pages/
# folder beside it for the older multipage layout until a first run has called
# st.navigation: the first visitor of a fresh server who follows a deep link (/data)
# would be told "Page not found" and sent home.
PagesManager.uses_pages_directory = False

app = st.App("app.py", middleware=[Middleware(ServerGuard)], lifespan=lifespan)
