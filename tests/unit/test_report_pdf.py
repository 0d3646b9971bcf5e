"""The release dossier's PDF (privcore.words.pdf): WeasyPrint prints the report's HTML with
its CSS, English and Chinese, every font embedded, and fetches nothing.

The PDF is read back with Poppler's tools, as a reader would: ``pdftotext`` for its words,
``pdffonts`` for its fonts, ``pdftoppm`` for the picture of its first page and
``pdfimages`` for its images. ``make test`` installs them (Debian's poppler-utils, in the
``chromium`` target); a test that needs one is skipped, saying so, where it is absent.
"""

from __future__ import annotations

import builtins
import logging
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from privcore.errors import ParameterError
from privcore.words.pdf import html_to_pdf
from privcore.words.report_html import CSS

ENGLISH = "The release is ready for its recipient."
CHINESE = "发布就绪报告"


def page(body: str) -> str:
    """A self-contained HTML document with the report's CSS around ``body``."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>Dossier</title><style>{CSS}</style></head><body><main>{body}</main></body></html>"
    )


DOSSIER = page(
    f'<h1>Release readiness</h1><p>{ENGLISH}</p><p lang="zh">{CHINESE}</p>'
    "<table><tr><th>Measure</th><th>Value</th></tr>"
    '<tr><td>k-anonymity</td><td class="num">5</td></tr>'
    '<tr><td>Re-identification risk</td><td class="num">0.20</td></tr></table>'
)


def poppler(tool: str):
    """Skip unless Poppler's ``tool`` is on the PATH (make test installs poppler-utils)."""
    return pytest.mark.skipif(
        shutil.which(tool) is None,
        reason=f"{tool} (Debian's poppler-utils) is not installed; `make chromium` installs it",
    )


def run(*command: str | Path) -> str:
    """The standard output of ``command`` (it must succeed)."""
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, check=True)
    return done.stdout


@pytest.fixture(scope="module")
def dossier_pdf(tmp_path_factory) -> Path:
    """The dossier printed once for the module, written to a file."""
    path = tmp_path_factory.mktemp("pdf") / "dossier.pdf"
    path.write_bytes(html_to_pdf(DOSSIER))
    return path


def test_the_pdf_is_a_pdf(dossier_pdf):
    data = dossier_pdf.read_bytes()
    assert data.startswith(b"%PDF")
    assert data.rstrip().endswith(b"%%EOF")


@poppler("pdftotext")
def test_pdftotext_reads_the_english_and_the_chinese_sentence(dossier_pdf):
    text = run("pdftotext", "-enc", "UTF-8", dossier_pdf, "-")
    words = " ".join(text.split())
    assert ENGLISH in words
    assert CHINESE in words.replace(" ", "")
    assert "k-anonymity" in words and "0.20" in words


@poppler("pdffonts")
def test_every_font_is_embedded(dossier_pdf):
    lines = run("pdffonts", dossier_pdf).splitlines()
    header = lines[0]
    emb = header.index("emb")
    fonts = [line for line in lines[2:] if line.strip()]
    assert fonts, "the PDF names no font"
    assert [f for f in fonts if f[emb : emb + 3] != "yes"] == []
    # the Chinese is drawn with one of the CJK fonts the report's CSS names
    assert any("WenQuanYi" in f or "CJK" in f for f in fonts), fonts


@poppler("pdftoppm")
def test_the_first_page_drawn_as_a_png_is_not_blank(dossier_pdf, tmp_path):
    from PIL import Image  # WeasyPrint depends on Pillow

    run("pdftoppm", "-png", "-r", "50", "-f", "1", "-l", "1", dossier_pdf, tmp_path / "page")
    (png,) = tmp_path.glob("page*.png")
    with Image.open(png) as image:
        grey = image.convert("L")
        inked = sum(grey.histogram()[:200])  # pixels darker than light grey
    assert grey.size[0] > 300  # A4 at 50 dpi is about 413 x 585 pixels
    assert inked > 200, f"only {inked} dark pixels on the first page"


@pytest.mark.parametrize(
    "error", [ImportError("No module named 'weasyprint'"), OSError("libpango")]
)
def test_without_weasyprint_or_pango_the_error_says_the_html_is_still_written(monkeypatch, error):
    real_import = builtins.__import__

    def failing_import(name, *args, **kwargs):
        if name.partition(".")[0] == "weasyprint":
            raise error
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", failing_import)
    with pytest.raises(ParameterError) as caught:
        html_to_pdf(DOSSIER)
    assert caught.value.code == "report.pdf_unavailable"
    assert "cannot be written on this machine" in caught.value.message
    assert "HTML report is still written" in caught.value.message
    assert str(error) in caught.value.message


def test_a_module_missing_from_sys_modules_is_the_same_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "weasyprint", None)
    with pytest.raises(ParameterError) as caught:
        html_to_pdf(DOSSIER)
    assert caught.value.code == "report.pdf_unavailable"


def test_an_external_image_is_refused_not_fetched(monkeypatch, caplog):
    def no_network(*args, **kwargs):
        raise AssertionError(f"the PDF writer reached for the network: {args}")

    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    url = "http://example.invalid/x.png"
    with caplog.at_level(logging.WARNING, logger="weasyprint"):
        data = html_to_pdf(page(f'<p>{ENGLISH}</p><img src="{url}" alt="">'))
    assert data.startswith(b"%PDF")
    refusals = [
        r.getMessage() for r in caplog.records if "privcore does not fetch" in r.getMessage()
    ]
    assert refusals and url in refusals[0]


@poppler("pdfimages")
def test_a_file_url_is_refused_too_so_the_pdf_has_no_image(tmp_path, caplog):
    from PIL import Image

    picture = tmp_path / "red.png"  # a real image WeasyPrint would draw if it could read it
    Image.new("RGB", (4, 4), "red").save(picture)
    pdf = tmp_path / "with-image.pdf"
    html = page(f'<img src="{picture.as_uri()}" style="width: 40px; height: 40px" alt="">')
    with caplog.at_level(logging.WARNING, logger="weasyprint"):
        pdf.write_bytes(html_to_pdf(html))
    assert any("privcore does not fetch" in r.getMessage() for r in caplog.records)
    listing = run("pdfimages", "-list", pdf).splitlines()
    assert listing[2:] == []  # the header and its rule, no image


def test_importing_the_module_does_not_import_weasyprint():
    code = "import sys, privcore.words.pdf; print('weasyprint' in sys.modules)"
    assert run(sys.executable, "-c", code).strip() == "False"
