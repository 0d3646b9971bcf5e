"""The style rules that word Streamlit's file uploader in the page's language."""

from __future__ import annotations

from ui.common.layout import css_string, uploader_style


def test_css_strings_cannot_end_the_string_or_the_style_element():
    assert css_string("上传") == '"上传"'
    assert css_string('a"b\\c</style>\n') == '"a\\22 b\\5c c\\3c /style\\3e \\a "'


def test_the_chinese_page_gets_chinese_words_and_the_servers_limit():
    rules = uploader_style(50)
    assert 'html:lang(zh) .stApp [data-testid="stFileUploaderDropzone"]' in rules
    assert 'content: "上传"' in rules
    assert 'content: "每个文件不超过 50 MB"' in rules
    assert 'content: "将文件拖放到这里"' in rules
    assert "lang(en)" not in rules  # English pages keep Streamlit's own words
    assert "每个文件不超过 1,024 MB" in uploader_style(1024)
