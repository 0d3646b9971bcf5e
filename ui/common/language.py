"""The interface's language: chosen once per visit, kept in the URL, announced to the
browser.

- **First run of a session** (a new visit, a reload, a deep link such as
  ``/learn?lesson=7&lang=zh``): the URL's ``?lang=`` when it names a language of the
  interface; otherwise the browser's preferred language (its ``navigator.language``,
  else the ``Accept-Language`` header, RFC 9110 §12.5.4: the first of its ranges, by
  quality, whose primary tag is ``en`` or ``zh``); otherwise English.
- **Every run**: the session's language is written back to ``?lang=`` when the URL
  names another, or names none and a new visit would not get it (a page change drops
  the query string; the next run puts it back), so a reload, a bookmark or a link
  copied from the address bar keeps it; a visitor in their browser's language keeps a
  plain URL.
- **The document's language**: Streamlit writes ``<html lang="en">`` whatever the page
  says; :func:`announce` sets it to the page's (``en`` or ``zh-Hans``), so a screen
  reader reads Chinese with Chinese rules (WCAG 2.1 success criterion 3.1.1).
"""

from __future__ import annotations

import json

import streamlit as st

from privcore.words.catalog import DEFAULT_LANGUAGE, LANGUAGES, text

__all__ = [
    "HTML_LANG",
    "announce",
    "browser_language",
    "from_accept_language",
    "keep_in_url",
    "start_language",
]

#: The BCP 47 tag of each interface language, as the document declares it.
HTML_LANG = {"en": "en", "zh": "zh-Hans"}
#: The session key marking that the session's language was chosen at its start.
STARTED = "_lang_started"


def from_accept_language(header: str | None) -> str | None:
    """The interface language an ``Accept-Language`` header prefers (None when it names
    none of them): ranges sorted by their ``q`` (1 when absent; order kept on ties),
    the first whose primary subtag is a language of the interface."""
    if not header:
        return None
    ranked = []
    for position, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        primary = tag.strip().split("-")[0].lower()
        if quality > 0 and primary:
            ranked.append((-quality, position, primary))
    for _, _, primary in sorted(ranked):
        if primary in LANGUAGES:
            return primary
    return None


def start_language() -> None:
    """On a session's first run, its language from the URL or the browser (see the
    module), unless the session was given one before it ran (a script that drives the
    app); later runs keep the session's own."""
    if st.session_state.get(STARTED):
        return
    st.session_state[STARTED] = True
    if st.session_state.get("lang") in LANGUAGES:  # set before the session's first run
        return
    asked = st.query_params.get("lang")
    if asked in LANGUAGES:
        st.session_state["lang"] = asked
        return
    st.session_state["lang"] = browser_language() or DEFAULT_LANGUAGE


def browser_language() -> str | None:
    """The interface language the browser prefers: its ``navigator.language``
    (``st.context.locale``), else the ``Accept-Language`` header of the connection;
    None without a browser (a script test) or when it prefers neither language."""
    try:
        locale = st.context.locale
        header = st.context.headers.get("Accept-Language")
    except (AttributeError, RuntimeError, KeyError):
        return None
    return from_accept_language(locale) or from_accept_language(header)


def keep_in_url(lang: str) -> None:
    """Write the session's language to the URL's ``?lang=`` when the URL says otherwise,
    or says nothing and a new visit would get another language (the browser prefers
    another): a visitor in the language their browser asks for keeps a plain URL."""
    current = st.query_params.get("lang")
    if current == lang:
        return
    if current is None and lang == (browser_language() or DEFAULT_LANGUAGE):
        return
    st.query_params["lang"] = lang


def announce(lang: str) -> None:
    """Declare the page's language on the document (``<html lang>``; the tag is one of
    :data:`HTML_LANG`, never text from a visitor), and name the file uploaders' button in
    it for screen readers: Streamlit writes "Upload" as the button's text, which the
    style sheet replaces on screen (:func:`ui.common.layout.uploader_style`), but a
    name drawn by CSS is not every assistive technology's; an ``aria-label`` from the
    catalogue is (kept on every uploader the page draws later, by a MutationObserver).
    It also turns off Streamlit's one single-letter shortcut, R (run the page again),
    outside text fields and tables (WCAG 2.1, 2.1.4): a stray key press reruns nothing."""
    tag = HTML_LANG.get(lang, HTML_LANG[DEFAULT_LANGUAGE])
    label = None if lang == DEFAULT_LANGUAGE else text("layout.uploader_button", lang)
    st.html(
        _ANNOUNCE.replace("TAG", json.dumps(tag)).replace("LABEL", _script_string(label)),
        unsafe_allow_javascript=True,
    )


def _script_string(value: str | None) -> str:
    """``value`` as a JavaScript literal that cannot end the script element."""
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e")


_ANNOUNCE = """<script>
document.documentElement.setAttribute("lang", TAG);
window.privcoreUploadLabel = LABEL;
if (!window.privcoreNameUploads) {
  window.privcoreNameUploads = () => {
    const label = window.privcoreUploadLabel;
    const buttons = '[data-testid="stFileUploaderDropzone"] [data-testid="stBaseButton-secondary"]';
    document.querySelectorAll(buttons).forEach((button) => {
      if (label) button.setAttribute("aria-label", label);
      else button.removeAttribute("aria-label");
    });
  };
  const watch = { childList: true, subtree: true };
  new MutationObserver(window.privcoreNameUploads).observe(document.body, watch);
}
window.privcoreNameUploads();
if (!window.privcoreNoLetterShortcuts) {
  window.privcoreNoLetterShortcuts = true;
  window.addEventListener("keydown", (event) => {
    const target = event.target;
    const typing = target && (target.isContentEditable
      || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)
      || target.closest('[data-testid="stDataFrame"]'));
    const bare = !(event.ctrlKey || event.metaKey || event.altKey);
    if (bare && !typing && (event.key === "r" || event.key === "R")) {
      event.stopImmediatePropagation();
    }
  }, true);
}
</script>"""
