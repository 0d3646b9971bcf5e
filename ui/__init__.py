"""Streamlit helpers shared by the pages: state, strings, errors, charts, components."""
