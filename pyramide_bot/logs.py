"""Logging for the bot process: interaction tokens never reach a log, voice warnings are not noise."""

from __future__ import annotations

import logging
import logging.handlers
import re

# Interaction tokens (valid 15 minutes) travel in URLs (``/webhooks/<app>/<token>/...`` for followups and
# edits, ``/interactions/<id>/<token>/callback`` for the first answer, both logged by discord.py at
# DEBUG, whole or percent-encoded) and in interaction payloads (JSON, or a dict's repr).
_SEGMENT = r"[^/?#&\s'\"<>]+"
_SECRETS = (
    (re.compile(r"((?:webhooks|interactions)(?:/|%2F)\d+(?:/|%2F))" + _SEGMENT, re.IGNORECASE), r"\1<token>"),
    (re.compile(r"""(["']token["']\s*:\s*["'])[^"']+"""), r"\1<token>"),
    (re.compile(r"(\btoken=)" + _SEGMENT), r"\1<token>"),
)
_NOISE = ("voice will NOT be supported",)


class RedactTokens(logging.Filter):
    """Removes interaction tokens from every record (discord.py logs payloads and URLs at DEBUG)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact_tokens(message)
        if any(noise in cleaned for noise in _NOISE):
            return False
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            # A traceback may carry a URL too (aiohttp's errors name theirs): formatted once, redacted.
            record.exc_text = _FORMATTER.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_tokens(record.exc_text)
        if record.stack_info:
            record.stack_info = redact_tokens(record.stack_info)
        return True


_FORMATTER = logging.Formatter()


def redact_tokens(text: str) -> str:
    """``text`` without interaction tokens."""
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure(level: str, file: str | None = None) -> None:
    """Root logging at ``level`` (a name such as INFO or DEBUG) on standard error, and in ``file`` (rotated
    at 10 MB, five kept) when one is given; tokens are redacted everywhere."""
    logging.basicConfig(level=getattr(logging, level.upper(), logging.INFO), format=FORMAT)
    root = logging.getLogger()
    if file:
        rotating = logging.handlers.RotatingFileHandler(file, maxBytes=10 * 2**20, backupCount=5, encoding="utf-8")
        rotating.setFormatter(logging.Formatter(FORMAT))
        root.addHandler(rotating)
    for handler in root.handlers:
        handler.addFilter(RedactTokens())
