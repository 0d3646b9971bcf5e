"""The page layout shared by every page: nothing cut off at 1,280 px, usable at 800 px.

Streamlit lays columns side by side until the *viewport* is 640 px wide; with the sidebar
open, an 800 px window leaves the main area about 470 px, and four columns of controls
there are about 100 px each. Its labels, metrics, buttons and tags of a multiselect
end in an ellipsis when they do not fit. The style sheet below changes three things:

- **Columns stack when they have no room.** Every column keeps a minimum width (more for
  one holding input widgets, less for one holding a metric); the column row wraps, so a
  column that would be narrower moves to the next line and fills it.
- **Text wraps instead of being cut.** Labels, metric labels and values, button labels,
  checkbox labels, tab titles and the uploader's file types wrap onto further lines.
- **Captions are readable**: darker than Streamlit's grey, so their contrast on white
  is at least 4.5:1 (WCAG 2.1, 1.4.3).
- **The keyboard's focus is drawn** on links, expanders' headers and tabs as on buttons
  and fields: a 2 px outline in the app's primary colour (WCAG 2.1, 2.4.7).
- **A multiselect shows every choice**: its tags wrap onto further lines instead of
  scrolling sideways in one. A select box cannot wrap its value (a one-line input): the
  open sidebar is at least :data:`SIDEBAR_WIDTH_PX` wide (Streamlit's is 300 px; a wider
  one can still be dragged) and its select box's type a little smaller, so that the
  data-set names fit.

:func:`lazy_tabs` are tabs of which only the one on screen is drawn.

**The file uploader speaks the page's language.** Streamlit draws the words of its file
uploader itself, in English, with no parameter to change them: the button "Upload", the
line "200MB per file • CSV, …" and, while a file is dragged over it, "Drag and drop a
file here". :func:`uploader_style` hides them in a page of another language (its
``<html lang>``, see :mod:`ui.common.language`) and shows the catalogue's words in their
place through CSS generated content, which browsers also give screen readers (the
button's accessible name is the page's word). The words come from a fixed map, one per
language, never from a visitor; the size limit is the server's ``server.maxUploadSize``.
In English Streamlit's own words stay, with the file types it lists.

:func:`controls_and_results` is the two-column layout of a page whose controls sit on
the left of its results (Anonymize): the controls column is at least 18rem wide and the
results column at least 28rem, side by side at 1,280 px, stacked at 800 px.

The selectors use Streamlit's ``data-testid`` attributes and the ``st-key-<key>`` class
of a keyed container: both are part of what Streamlit publishes for styling and testing,
unlike its generated class names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from privcore.words.catalog import DEFAULT_LANGUAGE, LANGUAGES, text

__all__ = [
    "CONTROLS_KEY",
    "RESULTS_KEY",
    "SIDEBAR_WIDTH_PX",
    "STYLE",
    "apply",
    "controls_and_results",
    "lazy_tabs",
    "uploader_style",
]

CONTROLS_KEY = "layout_controls"
RESULTS_KEY = "layout_results"

#: Minimum widths (rem) of columns: any column, one with input widgets, one with a metric,
#: and the two columns of :func:`controls_and_results`.
COLUMN_MIN_REM = 9
INPUT_COLUMN_MIN_REM = 16
METRIC_COLUMN_MIN_REM = 8
CONTROLS_MIN_REM = 18
RESULTS_MIN_REM = 28

#: The open sidebar's least width (Streamlit's default is 300 px): its data-set select
#: box shows the whole name of every bundled data set in both languages ("Hospital (9
#: patients, the textbook example)" takes 233 px in the sidebar's 13 px type; the box
#: leaves 242 px for it).
SIDEBAR_WIDTH_PX = 352

_INPUTS = ", ".join(
    f'[data-testid="{testid}"]'
    for testid in (
        "stSelectbox",
        "stMultiSelect",
        "stNumberInput",
        "stTextInput",
        "stDateInput",
        "stSlider",
        "stFileUploader",
    )
)

#: The captions' colour: 6.0:1 on white (WCAG 2.1 asks 4.5:1 for text of their size).
CAPTION_COLOUR = "#5f6368"
#: The outline of a focused link, expander header or tab: the theme's primary colour
#: (5.0:1 on white, 4.8:1 on the sidebar's grey).
FOCUS_COLOUR = "#0969da"

STYLE = f"""
/* Columns stack when they have no room (Streamlit stacks them only below 640 px). */
.stApp [data-testid="stHorizontalBlock"] {{ flex-wrap: wrap; }}
.stApp [data-testid="stColumn"] {{ min-width: min(100%, {COLUMN_MIN_REM}rem); }}
.stApp [data-testid="stColumn"]:has([data-testid="stMetric"]) {{
  min-width: min(100%, {METRIC_COLUMN_MIN_REM}rem);
}}
.stApp [data-testid="stColumn"]:has({_INPUTS}) {{
  min-width: min(100%, {INPUT_COLUMN_MIN_REM}rem);
}}
.stApp [data-testid="stColumn"]:has(.st-key-{CONTROLS_KEY}) {{
  flex: 1 1 {CONTROLS_MIN_REM}rem;
  min-width: min(100%, {CONTROLS_MIN_REM}rem);
}}
.stApp [data-testid="stColumn"]:has(.st-key-{RESULTS_KEY}) {{
  flex: 3 1 {RESULTS_MIN_REM}rem;
  min-width: min(100%, {RESULTS_MIN_REM}rem);
}}

/* Text wraps instead of ending in an ellipsis. */
.stApp .stMarkdownEllipsis,
.stApp [data-testid="stMetricLabel"] *,
.stApp [data-testid="stMetricValue"] *,
.stApp [data-testid="stFileUploaderDropzoneInstructions"] * {{
  white-space: normal;
  overflow: visible;
  text-overflow: clip;
  overflow-wrap: anywhere;
}}
.stApp [data-testid="stMetricValue"] {{ white-space: normal; overflow: visible; }}
/* A metric's value scales with its column (about 13 digits fit) before it wraps. */
.stApp [data-testid="stMetric"] {{ container-type: inline-size; }}
.stApp [data-testid="stMetricValue"] {{
  font-size: clamp(1.25rem, 14cqi, 2.25rem);
  line-height: 1.2;
}}
.stApp button p {{ white-space: normal; }}
/* A select box's value is a one-line input: the sidebar is wider and its select box's
   type smaller, so that a data set's name fits. */
.stApp [data-testid="stSidebar"][data-collapsed="false"] {{
  min-width: min({SIDEBAR_WIDTH_PX}px, 90vw);
}}
.stApp [data-testid="stSidebar"] [data-testid="stSelectbox"] input {{ font-size: 0.8125rem; }}

/* Tabs wrap onto a second line instead of scrolling sideways. */
.stApp [data-testid="stTabs"] [role="tablist"] {{ flex-wrap: wrap; overflow: visible; }}

/* A multiselect shows every choice: its tags wrap onto further lines. */
.stApp [data-testid="stMultiSelect"] [role="group"]:has(
  > [data-testid="stMultiSelectTagsContainer"]
) {{
  max-height: none;
  height: auto;
}}
.stApp [data-testid="stMultiSelectTagsContainer"] {{
  flex-wrap: wrap;
  overflow: visible;
  max-height: none;
}}
.stApp [data-testid="stMultiSelectTagsContainer"] [data-tag] {{
  max-width: 100%;
  height: auto;
  min-height: 1.75rem;
}}
.stApp [data-testid="stMultiSelectTagsContainer"] [data-tag] > span {{
  max-width: none;
  white-space: normal;
  overflow: visible;
  text-overflow: clip;
  overflow-wrap: anywhere;
}}

/* Captions readable: Streamlit's grey (#828180 on white, 3.9:1) is darker here, at least
   the 4.5:1 of WCAG 2.1's 1.4.3 for text of their size. */
.stApp [data-testid="stCaptionContainer"] {{ color: {CAPTION_COLOUR}; opacity: 1; }}

/* The pages' names in the sidebar wrap rather than being cut, also with the wider
   letter and line spacing a reader may set (WCAG 2.1, 1.4.12). */
.stApp [data-testid="stSidebarNav"] a span {{
  overflow: visible;
  white-space: normal;
  text-overflow: clip;
  height: auto;
}}

/* The keyboard's focus drawn on links, expanders and tabs too (WCAG 2.1, 2.4.7):
   Streamlit marks a focused page link only by a faint background. */
.stApp a:focus-visible,
.stApp summary:focus-visible,
.stApp [role="tab"]:focus-visible {{
  outline: 2px solid {FOCUS_COLOUR};
  outline-offset: -2px;
}}
"""


#: The uploader's words: the catalogue's key of each (the button, the size limit, the
#: text shown while a file is dragged over the field).
UPLOADER_WORDS = ("layout.uploader_button", "layout.uploader_limit", "layout.uploader_drop")


def css_string(words: str) -> str:
    """``words`` as a CSS string: quotes, backslashes, angle brackets and control
    characters written as escapes (nothing can end the string or the style element)."""
    escaped = "".join(
        f"\\{ord(ch):x} " if ch in '"\\<>' or ord(ch) < 32 or ord(ch) == 127 else ch for ch in words
    )
    return f'"{escaped}"'


def uploader_style(limit_mb: int | None = None) -> str:
    """The rules that word Streamlit's file uploader in each language but English (see
    the module): for the page whose ``<html lang>`` is that language, the button's label,
    the size line (``limit_mb``, by default the server's ``server.maxUploadSize``) and
    the text shown while a file is dragged over the field. The text they replace is
    hidden (which takes it out of the accessibility tree too) and takes no room; the
    replacement keeps Streamlit's colour and weight. The field's hidden file input, a
    second button that Streamlit names "file upload", is hidden from screen readers too:
    the page's button opens the same file chooser."""
    if limit_mb is None:
        limit_mb = int(st.get_option("server.maxUploadSize"))
    rules = []
    for lang in LANGUAGES:
        if lang == DEFAULT_LANGUAGE:  # Streamlit's own words are English
            continue
        button, limit, drop = (
            css_string(text(key, lang, size=f"{limit_mb:,}")) for key in UPLOADER_WORDS
        )
        zone = f'html:lang({lang}) .stApp [data-testid="stFileUploaderDropzone"]'
        label = f'{zone} [data-testid="stBaseButton-secondary"] [data-testid="stMarkdownContainer"]'
        line = f'{zone} [data-testid="stFileUploaderDropzoneInstructions"] span'
        dragged = f"{zone} > div:not([data-testid]) > span:only-child"
        rules.append(f"""
/* The file uploader's words in the page's language ({lang}). */
{zone} > input[type="file"] {{ visibility: hidden; }}
{label} > p {{ display: none; }}
{label}::after {{ content: {button}; }}
{line}, {dragged} {{ visibility: hidden; font-size: 0; }}
{line}::after {{ content: {limit}; visibility: visible; font-size: 0.875rem; }}
{dragged}::after {{ content: {drop}; visibility: visible; font-size: 0.875rem; }}
""")
    return "".join(rules)


def apply() -> None:
    """Add the style sheet to the page (a style-only ``st.html`` takes no room)."""
    st.html(f"<style>{STYLE}{uploader_style()}</style>")


def controls_and_results():
    """Two containers side by side: the controls (left) and the results (right); stacked,
    controls first, when the main area is narrower than both minimum widths."""
    left, right = st.columns([1, 3], gap="medium")
    return left.container(key=CONTROLS_KEY), right.container(key=RESULTS_KEY)


def lazy_tabs(panels: Sequence[tuple[str, Callable[[], None]]], *, key: str) -> None:
    """Tabs of ``panels`` (its title, the function that draws it), the one open kept under
    ``key``: only the tab on screen is drawn (a change of tab reruns the page), so a rerun
    costs one tab's charts and tables, not all of them."""
    tabs = st.tabs([title for title, _ in panels], key=key, on_change="rerun")
    for tab, (_, draw) in zip(tabs, panels, strict=True):
        with tab:
            if tab.open:
                draw()
