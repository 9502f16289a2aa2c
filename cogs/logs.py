"""Logging for the bot process: interaction tokens never reach a log, voice warnings are not noise."""

from __future__ import annotations

import logging
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


def configure(level: str) -> None:
    """Root logging at ``level`` (a name such as INFO or DEBUG), with tokens redacted."""
    logging.basicConfig(
        level=getattr(logging, level.upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactTokens())
