"""The pages' interface (Streamlit): :mod:`ui.common` is what every page shares (state,
words, errors, heavy runs, layout, charts, the shelf of releases), and one package per
page family builds on it — ``data``, ``anonymize``, ``measure``, ``attack``, ``ldp``,
``dp``, ``history``, ``report``, ``learn`` — never on another page's package."""
