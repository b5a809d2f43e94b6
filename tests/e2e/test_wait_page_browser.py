"""The HTTP front's "please wait a minute" page (HTTP 429, issue 58), as a participant's browser shows it: real
Chromium on a phone's screen, set to a language, behind real HAProxy over its session bound. The browser's own
language is the first thing on the page, every other shipped language follows, Arabic reads right to left,
and nothing runs off the side of the phone."""
import pytest

from fairval.annotate.material.languages import LANGUAGES
from fairval.annotate.serving.front import WAIT_TITLE
from fairval.ui.i18n import translator
from tests.annotate.serving.test_front_sessions import answer, front  # noqa: F401  (the fixture)

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("locale, code", [("de-DE", "de"), ("ar-EG", "ar"), ("zh-CN", "zh-Hans"), ("it-IT", "en")])
def test_the_browsers_language_comes_first_on_the_wait_page(front, browser, locale, code, tmp_path):
    port = front(sessions_per_10s=1, sessions_per_3min=1000)
    assert [answer(port, "127.0.0.1")[0] for _ in range(2)] == [200, 429]     # Chromium's own address, over
    context = browser.new_context(viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True,
                                  locale=locale)
    page = context.new_page()
    response = page.goto(f"http://127.0.0.1:{port}/?study=launch")
    assert response is not None and response.status == 429
    shown = page.evaluate("""() => [...document.querySelectorAll('section')].map(s => {
        const box = s.getBoundingClientRect(), h = s.querySelector('h1');
        return {lang: s.lang, top: box.top, direction: getComputedStyle(h).direction,
                heading: h.innerText, visible: box.height > 0};
    }).sort((a, b) => a.top - b.top)""")
    assert shown[0]["lang"] == code and shown[0]["heading"] == translator(code)(WAIT_TITLE), shown[0]
    assert sorted(s["lang"] for s in shown) == sorted(LANGUAGES) and all(s["visible"] for s in shown)
    assert {s["lang"] for s in shown if s["direction"] == "rtl"} == {"ar"}
    assert page.title() == translator(code)(WAIT_TITLE)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375          # nothing runs off the phone
    page.screenshot(path=str(tmp_path / f"wait-{code}.png"), full_page=True)
    context.close()
