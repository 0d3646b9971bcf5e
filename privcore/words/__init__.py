"""The product's words, below both front ends.

The catalogues of English and Chinese texts (``locales/``), the functions that look a
text up and fill it in (:mod:`privcore.words.catalog`), the labels of models, figures
and options (:mod:`privcore.words.labels`), the sentences of the Article 29 risks
(:mod:`privcore.words.risks`) and the release-readiness report's HTML document
(:mod:`privcore.words.report_html`). None of them imports Streamlit: the command line
and the pages (``ui``) both read them, so a report says the same in a terminal, a
download and a page.
"""
