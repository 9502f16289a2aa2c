"""Logging for the bot process: interaction tokens never reach a log, voice warnings are not noise."""

from __future__ import annotations

import logging
import logging.handlers
import re

# Interaction tokens (valid 15 minutes) travel in webhook URLs and in interaction payloads.
_SECRETS = (
    (re.compile(r"(/webhooks/\d+/)[A-Za-z0-9_.\-]+"), r"\1<token>"),
    (re.compile(r"""(["']token["']\s*:\s*["'])[^"']+"""), r"\1<token>"),
)
_NOISE = ("voice will NOT be supported",)


class RedactTokens(logging.Filter):
    """Removes interaction tokens from every record (discord.py logs payloads and URLs at DEBUG)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = message
        for pattern, replacement in _SECRETS:
            cleaned = pattern.sub(replacement, cleaned)
        if any(noise in cleaned for noise in _NOISE):
            return False
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


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
