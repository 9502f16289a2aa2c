"""What every answer of the Activity's server carries and may serve: the page's files, one spelling of each
card picture, and the headers (a Content-Security-Policy as strict as Discord's proxy, framed by Discord
only; ``no-store`` on whatever carries a token and on every error)."""

from __future__ import annotations

import json
import re
from typing import Any

from aiohttp import web

# Discord's clients frame the Activity (the web and desktop app; its proxy's own origin on mobile).
FRAMED_BY = "https://discord.com https://*.discord.com https://*.discordsays.com"
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    f"font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors {FRAMED_BY}"
)
CARD = re.compile(r"[0-9]|[1-4][0-9]|5[01]|back|empty|turn")  # one spelling per picture, so one cache entry
WEB_FILES = {
    "index.html": "text/html",
    "app.js": "text/javascript",
    "table.js": "text/javascript",
    "link.js": "text/javascript",
    "deal.js": "text/javascript",
    "choices.js": "text/javascript",
    "playback.js": "text/javascript",
    "keys.js": "text/javascript",
    "announce.js": "text/javascript",
    "daily.js": "text/javascript",
    "party.js": "text/javascript",
    "style.css": "text/css",
    "build/sdk.js": "text/javascript",
}
SECURITY = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


def json_answer(body: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(
        text=json.dumps(body, ensure_ascii=False),
        status=status,
        headers={"Content-Type": "application/json", "Cache-Control": "no-store", **(headers or {})},
    )


def file_headers(content_type: str) -> dict[str, str]:
    return {"Content-Type": content_type, "Cache-Control": "no-cache"}


async def secure(request: web.Request, response: web.StreamResponse) -> None:
    """Every answer, aiohttp's own 404, 405, 413 and 500 included, carries the same headers."""
    for name, value in SECURITY.items():
        response.headers.setdefault(name, value)
    if request.path.startswith("/api/") or response.status >= 400:
        response.headers["Cache-Control"] = "no-store"
