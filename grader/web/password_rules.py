"""A password check Django's own validators leave out: the password as the keyboard cannot tell it apart.

In: a new password and its account (Django's ``AUTH_PASSWORD_VALIDATORS`` protocol). Out: nothing,
or a ``ValidationError`` with the sentence the password page shows. Django's validators read the
text as typed, so twenty spaces pass the length check and ``𝔭𝔞𝔰𝔰𝔴𝔬𝔯𝔡`` (mathematical letters)
passes the common-password list. This one reads the password as NFKC makes it (those letters
become ``password``) and counts only the characters that are not blank.
"""

from __future__ import annotations

import unicodedata

from django.contrib.auth.password_validation import CommonPasswordValidator, UserAttributeSimilarityValidator
from django.core.exceptions import ValidationError

MIN_VISIBLE = 8


class NormalisedPasswordValidator:
    """At least ``MIN_VISIBLE`` characters that are not blank, and Django's common-password and
    username-similarity checks on the NFKC form when it differs from the text typed."""

    def validate(self, password: str, user=None) -> None:
        plain = unicodedata.normalize("NFKC", password)
        if len("".join(plain.split())) < MIN_VISIBLE:
            raise ValidationError(
                f"This password is mostly blank: it needs at least {MIN_VISIBLE} characters that are not spaces.",
                code="password_mostly_blank",
            )
        if plain != password:
            CommonPasswordValidator().validate(plain, user)
            UserAttributeSimilarityValidator().validate(plain, user)

    def get_help_text(self) -> str:
        return f"Your password must contain at least {MIN_VISIBLE} characters that are not spaces."
