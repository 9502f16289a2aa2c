"""Every setting the bot reads from its environment, read and checked once at start.

``Settings.from_environment`` reads each variable (README and ``.env.example`` list them with their
defaults) and raises ``SettingsError`` for the first one that is wrong, with one sentence naming the
variable and what it must look like; ``bot.py`` prints it and exits with status 2 (a configuration
error, which a supervisor does not restart). Nothing else in the bot reads the environment: the solver's
worker processes are told ``pure_solver`` when they start (``Workers(setup=...)``), not left to read it.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pyramide_service.storage import from_url

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "WARN", "ERROR", "CRITICAL")  # the names logging knows
DEFAULT_GRACE_DAYS = 30
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*$")
# An OAuth2 client secret as the developer portal shows it (32 characters today): letters, digits, - and _.
_CLIENT_SECRET = re.compile(r"[A-Za-z0-9_-]{16,128}")


class SettingsError(ValueError):
    """A variable with a value the bot cannot use; the message names it and says what it must look like."""


@dataclass(frozen=True)
class Deployment:
    """Where this process connects and which shards it runs."""

    api_base: str | None = None  # DISCORD_API_BASE: a REST base (a rate-limit proxy, or a test server)
    shard_count: int | None = None  # SHARD_COUNT
    shard_ids: tuple[int, ...] | None = None  # SHARD_IDS: those of this process

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> Deployment:
        """Read and check the variables; raises ``SettingsError`` with a sentence for the operator."""
        base = _get(environ, "DISCORD_API_BASE").rstrip("/") or None
        if base is not None and not base.startswith(("http://", "https://")):
            raise SettingsError(f"DISCORD_API_BASE must be an http(s) URL, not {base!r}")
        count_text = _get(environ, "SHARD_COUNT")
        ids_text = _get(environ, "SHARD_IDS")
        if not count_text:
            if ids_text:
                raise SettingsError("SHARD_IDS needs SHARD_COUNT (the number of shards of the whole bot)")
            return cls(base)
        if not count_text.isdigit() or int(count_text) < 1:
            raise SettingsError(f"SHARD_COUNT must be a whole number of at least 1, not {count_text!r}")
        count = int(count_text)
        if not ids_text:
            return cls(base, count, tuple(range(count)))
        try:
            ids = tuple(int(part) for part in ids_text.split(","))
        except ValueError:
            raise SettingsError(f"SHARD_IDS must be shard numbers separated by commas, not {ids_text!r}") from None
        if not ids or len(set(ids)) != len(ids) or any(not 0 <= shard < count for shard in ids):
            raise SettingsError(f"SHARD_IDS must be distinct numbers from 0 to {count - 1}, not {ids_text!r}")
        return cls(base, count, ids)


@dataclass(frozen=True)
class ActivitySettings:
    """The Activity's server: where it listens and the application's client secret, which the code exchange
    needs. Without ``ACTIVITY_PORT`` there is no Activity and no launch button (docs/activity.md)."""

    port: int  # ACTIVITY_PORT
    client_secret: str = field(repr=False)  # DISCORD_CLIENT_SECRET: never printed, never logged, never sent to a page
    host: str = "127.0.0.1"  # ACTIVITY_HOST: the reverse proxy or tunnel in front connects here

    @classmethod
    def from_environment(cls, environ: Mapping[str, str], metrics_port: int | None) -> ActivitySettings | None:
        """Read and check the variables; raises ``SettingsError`` with a sentence for the operator that never
        repeats the secret."""
        port = _port(environ, "ACTIVITY_PORT")
        secret = _get(environ, "DISCORD_CLIENT_SECRET")
        if secret and not _CLIENT_SECRET.fullmatch(secret):
            raise SettingsError(
                "DISCORD_CLIENT_SECRET must be the application's OAuth2 client secret as the developer portal shows "
                f"it (16 to 128 letters, digits, - or _; the value given has {len(secret)} characters)"
            )
        if port is None:
            return None
        if not secret:
            raise SettingsError(
                "ACTIVITY_PORT needs DISCORD_CLIENT_SECRET (the application's OAuth2 client secret, from the "
                "developer portal's OAuth2 page)"
            )
        if port == metrics_port:
            raise SettingsError(f"ACTIVITY_PORT must differ from METRICS_PORT (both are {port})")
        return cls(port, secret, _host(environ, "ACTIVITY_HOST", "127.0.0.1"))


@dataclass(frozen=True)
class Settings:
    token: str
    database_url: str
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    log_file: Path | None = None
    daily_secret: str | None = None  # None: one is generated at the first start and kept in the database
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"
    guild_data_grace_days: int = DEFAULT_GRACE_DAYS
    pure_solver: bool = False
    deployment: Deployment = field(default_factory=Deployment)
    activity: ActivitySettings | None = None  # ACTIVITY_PORT unset: no Activity

    @classmethod
    def from_environment(cls, environ: Mapping[str, str], *, default_database: Path) -> Settings:
        """Every variable read and checked; raises ``SettingsError`` for the first one that is wrong."""
        token = _get(environ, "DISCORD_TOKEN")
        if not token:
            raise SettingsError(
                "DISCORD_TOKEN is not set: copy .env.example to .env and put your bot token in DISCORD_TOKEN="
            )
        metrics_port = _port(environ, "METRICS_PORT")
        return cls(
            token=token,
            database_url=database_url(environ, default_database),
            dev_guild_id=_snowflake(environ, "DEV_GUILD_ID"),
            log_level=_log_level(environ),
            log_file=_log_file(environ),
            daily_secret=_daily_secret(environ),
            metrics_port=metrics_port,
            metrics_host=_host(environ, "METRICS_HOST", "127.0.0.1"),
            guild_data_grace_days=_whole(environ, "GUILD_DATA_GRACE_DAYS", DEFAULT_GRACE_DAYS, 0, 3650, "days"),
            pure_solver=_flag(environ, "PYRAMIDE_PURE_SOLVER", "use the pure Python solver"),
            deployment=Deployment.from_environment(environ),
            activity=ActivitySettings.from_environment(environ, metrics_port),
        )


def _get(environ: Mapping[str, str], name: str) -> str:
    return environ.get(name, "").strip()


def database_url(environ: Mapping[str, str], default: Path) -> str:
    """The database, as ``pyramide_service.storage.from_url`` takes it: ``DATABASE_URL`` (``sqlite:///ABSOLUTE/PATH``
    or ``postgresql://…``), else the SQLite file ``PYRAMIDE_DB``, else ``default``. Raises
    ``SettingsError`` for a URL that names neither (without repeating a password)."""
    url = _get(environ, "DATABASE_URL")
    if not url:
        return _get(environ, "PYRAMIDE_DB") or str(default)
    try:
        from_url(url)  # raises for a URL that names no database this bot can use
    except ValueError as error:
        raise SettingsError(f"DATABASE_URL {error}") from None
    return url


def _snowflake(environ: Mapping[str, str], name: str) -> int | None:
    text = _get(environ, name)
    if not text:
        return None
    if not (text.isdigit() and 15 <= len(text) <= 20):
        raise SettingsError(f"{name} must be a Discord server id (a number of 15 to 20 digits), not {text!r}")
    return int(text)


def _log_level(environ: Mapping[str, str]) -> str:
    text = _get(environ, "LOG_LEVEL").upper() or "INFO"
    if text not in LOG_LEVELS:
        raise SettingsError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {_get(environ, 'LOG_LEVEL')!r}")
    return text


def _log_file(environ: Mapping[str, str]) -> Path | None:
    text = _get(environ, "LOG_FILE")
    if not text:
        return None
    path = Path(text)
    if path.is_dir() or not path.parent.is_dir():
        raise SettingsError(f"LOG_FILE must be a file in a folder that exists, not {text!r}")
    return path


def _daily_secret(environ: Mapping[str, str]) -> str | None:
    """Any secret is taken as it is: a deployment's secret decides every day's deal, so one kept from an
    earlier version must go on working (the generated one has 64 hexadecimal digits)."""
    return _get(environ, "DAILY_SECRET") or None


def _port(environ: Mapping[str, str], name: str) -> int | None:
    text = _get(environ, name)
    if not text:
        return None
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise SettingsError(f"{name} must be a port number from 1 to 65535 (or empty), not {text!r}")
    return int(text)


def _host(environ: Mapping[str, str], name: str, default: str) -> str:
    text = _get(environ, name)
    if not text:
        return default
    try:
        ipaddress.ip_address(text)
    except ValueError:
        if not _HOST.match(text):
            raise SettingsError(f"{name} must be a host name or an IP address, not {text!r}") from None
    return text


def _whole(environ: Mapping[str, str], name: str, default: int, low: int, high: int, unit: str) -> int:
    text = _get(environ, name)
    if not text:
        return default
    if not text.isdigit() or not low <= int(text) <= high:
        raise SettingsError(f"{name} must be a whole number of {unit} from {low} to {high}, not {text!r}")
    return int(text)


def _flag(environ: Mapping[str, str], name: str, meaning: str) -> bool:
    text = _get(environ, name)
    if text not in ("", "0", "1"):
        raise SettingsError(f"{name} must be 1 ({meaning}), 0 or empty, not {text!r}")
    return text == "1"
