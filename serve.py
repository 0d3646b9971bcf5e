"""The server of Privacy Workbench: the app of ``app.py`` with the guard and housekeeping
of :mod:`ui.common.hosting`. ``make run`` and the container start it with ``streamlit run
serve.py``; ``streamlit run app.py`` still works, without them."""

import streamlit as st
from starlette.middleware import Middleware

from ui.common.hosting import ServerGuard, lifespan

app = st.App("app.py", middleware=[Middleware(ServerGuard)], lifespan=lifespan)
