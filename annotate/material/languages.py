"""The languages a rater's way through a study can be shown in (the catalogues are in ui/locale)."""
from __future__ import annotations

from fairval.errors import StudyError

# The languages fairval ships, BCP 47, with their name in their own script and their direction.
LANGUAGES: dict[str, tuple[str, str]] = {
    "en": ("English", "ltr"), "es": ("Español", "ltr"), "fr": ("Français", "ltr"), "de": ("Deutsch", "ltr"),
    "pt-BR": ("Português (Brasil)", "ltr"), "hi": ("हिन्दी", "ltr"), "zh-Hans": ("中文（简体）", "ltr"),
    "ja": ("日本語", "ltr"), "sw": ("Kiswahili", "ltr"), "ar": ("العربية", "rtl"),
}
DEFAULT = "en"


def supported(code: str) -> str | None:
    """The shipped language a BCP 47 tag asks for (exact, case-insensitive, or by its primary subtag:
    es-MX is es, pt is pt-BR, zh and zh-CN are zh-Hans), or None."""
    wanted = (code or "").strip().replace("_", "-").casefold()
    for shipped in LANGUAGES:
        if shipped.casefold() == wanted:
            return shipped
    primary = wanted.split("-")[0]
    for shipped in LANGUAGES:
        if shipped.split("-")[0].casefold() == primary:
            return shipped
    return None


def direction(language: str) -> str:
    return LANGUAGES.get(language, ("", "ltr"))[1]


def further_languages(codes, language: str) -> tuple[str, ...]:
    """The further languages as shipped codes, each once and never the study's own."""
    if isinstance(codes, str) or not isinstance(codes, (list, tuple)):
        raise StudyError(f"languages must be a list of languages, e.g. ar,fr, not {codes!r}")
    out: list[str] = []
    for code in codes:
        shipped = supported(str(code))
        if shipped is None:
            raise StudyError(f"languages: {code!r} is not one fairval ships ({', '.join(LANGUAGES)})")
        if shipped != language and shipped not in out:
            out.append(shipped)
    return tuple(out)
