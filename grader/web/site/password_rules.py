"""Password checks Django's own validators leave out: the password as the keyboard cannot tell it
apart, and a word with a number.

In: a new password and its account (Django's ``AUTH_PASSWORD_VALIDATORS`` protocol). Out: nothing,
or a ``ValidationError`` with the sentence the password page shows. Django's validators read the
text as typed, so twenty spaces pass the length check and ``𝔭𝔞𝔰𝔰𝔴𝔬𝔯𝔡`` (mathematical letters)
passes the common-password list. ``NormalisedPasswordValidator`` reads the password as NFKC makes
it (those letters become ``password``) and counts only the characters that are not blank. Each
refusal says its real reason: a short password is "too short" (Django's), never also "mostly
blank"; one refused only in its plain form says it was read so ("Read as plain letters (𝔭 and ｐ
are p), this password is too common.").
``WordAndNumberValidator`` refuses what guessers try first after the common lists: one word and one
number, in either order, with any punctuation around them (``nimlab2024``, ``Summer2023!``,
``2024 nimlab``); several words, or letters and digits mixed, pass.
"""

from __future__ import annotations

import re
import unicodedata

from django.contrib.auth.password_validation import CommonPasswordValidator, UserAttributeSimilarityValidator
from django.core.exceptions import ValidationError

MIN_VISIBLE = 8
# runs of letters (any script) and runs of decimal digits; everything else separates them
_RUNS = re.compile(r"[^\W\d_]+|\d+")


class NormalisedPasswordValidator:
    """At least ``MIN_VISIBLE`` characters that are not blank, and Django's common-password and
    username-similarity checks on the NFKC form when it differs from the text typed."""

    def validate(self, password: str, user=None) -> None:
        plain = unicodedata.normalize("NFKC", password)
        # (shorter than the minimum, Django's length rule says why; blank padding is the reason only beyond it)
        if len(password) >= MIN_VISIBLE and len("".join(plain.split())) < MIN_VISIBLE:
            raise ValidationError(
                f"This password is mostly blank: it needs at least {MIN_VISIBLE} characters that are not spaces.",
                code="password_mostly_blank",
            )
        if plain != password:
            try:
                CommonPasswordValidator().validate(plain, user)
                UserAttributeSimilarityValidator().validate(plain, user)
            except ValidationError as refused:  # Django's sentence, and why it applies to what was typed
                said = refused.messages[0]
                raise ValidationError(
                    f"Read as plain letters (𝔭 and ｐ are p), {said[:1].lower()}{said[1:]}", code=refused.code
                ) from None

    def get_help_text(self) -> str:
        return f"Spaces do not count among its {MIN_VISIBLE} characters, and letters count as their plain form (𝔭: p)."


class WordAndNumberValidator:
    """No password that is, read as NFKC, one run of letters and one run of digits (either order)
    with nothing else but punctuation or blanks: a word plus a year or a number."""

    def validate(self, password: str, user=None) -> None:
        runs = _RUNS.findall(unicodedata.normalize("NFKC", password))
        if len(runs) == 2 and runs[0].isdigit() != runs[1].isdigit():
            raise ValidationError(
                "This password is only a word and a number (like summer2024, Nimlab2024! or 2024 nimlab), "
                "among the first things a guesser tries: use several words, or mix letters, digits and "
                "symbols throughout.",
                code="password_word_and_number",
            )

    def get_help_text(self) -> str:
        return "Your password cannot be only a word and a number (like summer2024)."
