"""The release dossier as a PDF: the report's HTML document printed by WeasyPrint.

:func:`html_to_pdf` turns the self-contained HTML of :mod:`privcore.words.report_html`
(inline CSS, no links to fetch, no images) into the bytes of a PDF. WeasyPrint subsets
and embeds every font it uses, so the PDF reads the same on a machine without those
fonts: Chinese text included, drawn with the CJK font the report's CSS names ("Noto Sans
CJK SC" or "WenQuanYi Zen Hei", which fontconfig finds on this machine).

WeasyPrint is imported inside the function, so the command line does not pay its import
unless it writes a PDF. When WeasyPrint or its system libraries (Pango) cannot be loaded,
the function raises :class:`~privcore.errors.ParameterError` with the code
``report.pdf_unavailable``: the caller still writes the HTML. Nothing is fetched while
printing: every URL the document names (an image, a stylesheet) is refused, WeasyPrint
logs the refusal and leaves that resource out.
"""

from __future__ import annotations

from typing import Any

from privcore.errors import ParameterError

__all__ = ["html_to_pdf"]

REFUSAL = "privcore does not fetch {url!r}: the report's HTML must be self-contained"


def html_to_pdf(html: str) -> bytes:
    """The PDF (bytes, starting with ``%PDF``) of the HTML document ``html``.

    No base URL and a URL fetcher that refuses every URL, so nothing is read from the
    network or the disk; a resource the document names is left out of the PDF.

    Raises ParameterError (``report.pdf_unavailable``) when WeasyPrint or Pango is missing.
    """
    weasyprint = _load_weasyprint()
    document = weasyprint.HTML(string=html, base_url=None, url_fetcher=_refusing_fetcher())
    return document.write_pdf()


def _load_weasyprint() -> Any:
    """The ``weasyprint`` module, or ParameterError when it or its libraries are missing
    (ImportError for the package, OSError when Pango's shared libraries cannot be opened)."""
    try:
        import weasyprint
    except (ImportError, OSError) as error:
        raise ParameterError(
            "The PDF cannot be written on this machine: WeasyPrint or the Pango library it "
            f"needs is missing ({type(error).__name__}: {error}). The HTML report is still "
            "written; install weasyprint and libpango to have the PDF.",
            code="report.pdf_unavailable",
            reason=str(error),
        ) from error
    return weasyprint


def _refusing_fetcher() -> Any:
    """A WeasyPrint URL fetcher that refuses every URL (http, file, data alike).

    It subclasses WeasyPrint's own ``URLFetcher`` (WeasyPrint reads its options) and
    raises ValueError from ``fetch``; WeasyPrint catches it and logs the message."""
    from weasyprint.urls import URLFetcher

    class RefusingFetcher(URLFetcher):
        def fetch(self, url: str, headers: Any = None) -> Any:
            raise ValueError(REFUSAL.format(url=url))

    return RefusingFetcher()
