"""The bot's settings: every variable read once, with its default, a good value of each taken as is, and a
wrong one refused in one sentence naming it (which the real process prints as its one line: test_process.py)."""

from pathlib import Path

import pytest

from pyramide_bot.settings import ActivitySettings, Deployment, Settings, SettingsError

SECRET = "Ab3_-" * 6 + "xy"  # 32 characters, as the developer portal shows a client secret


def test_with_only_a_token_every_setting_has_its_documented_default(tmp_path):
    settings = Settings.from_environment({"DISCORD_TOKEN": " x.y.z "}, default_database=tmp_path / "pyramide.db")
    assert settings == Settings(token="x.y.z", database_url=str(tmp_path / "pyramide.db"))
    assert (settings.metrics_port, settings.metrics_host, settings.guild_data_grace_days) == (None, "127.0.0.1", 30)
    assert settings.log_level == "INFO" and settings.daily_secret is None and settings.deployment == Deployment()
    assert settings.activity is None  # no Activity, and no launch button on the boards


def test_good_values_are_taken(tmp_path):
    environ = {
        "DISCORD_TOKEN": "x.y.z",
        "DATABASE_URL": f"sqlite:///{tmp_path}/p.db",
        "DEV_GUILD_ID": "123456789012345678",
        "LOG_LEVEL": "debug",
        "LOG_FILE": str(tmp_path / "bot.log"),
        "DAILY_SECRET": "short",  # a secret kept from an earlier version is taken as it is
        "METRICS_PORT": "9108",
        "METRICS_HOST": "::",
        "GUILD_DATA_GRACE_DAYS": "0",
        "PYRAMIDE_PURE_SOLVER": "1",
        "SHARD_COUNT": "4",
        "SHARD_IDS": "2,3",
        "ACTIVITY_PORT": "8090",
        "ACTIVITY_HOST": "0.0.0.0",
        "DISCORD_CLIENT_SECRET": f" {SECRET} ",
    }
    settings = Settings.from_environment(environ, default_database=Path("unused.db"))
    assert settings.database_url == f"sqlite:///{tmp_path}/p.db" and settings.dev_guild_id == 123456789012345678
    assert settings.log_level == "DEBUG" and settings.log_file == tmp_path / "bot.log"
    assert (settings.metrics_port, settings.metrics_host, settings.guild_data_grace_days) == (9108, "::", 0)
    assert settings.pure_solver and settings.deployment == Deployment(None, 4, (2, 3))
    assert settings.activity == ActivitySettings(8090, SECRET, "0.0.0.0")
    assert SECRET not in repr(settings)  # the secret is never printed, not even with the settings


def test_the_activity_needs_its_client_secret_and_a_port_of_its_own(tmp_path):
    environ = {"DISCORD_TOKEN": "x.y.z", "ACTIVITY_PORT": "8090"}
    with pytest.raises(SettingsError, match=r"^ACTIVITY_PORT needs DISCORD_CLIENT_SECRET"):
        Settings.from_environment(environ, default_database=tmp_path / "p.db")
    environ.update(DISCORD_CLIENT_SECRET=SECRET, METRICS_PORT="8090")
    with pytest.raises(SettingsError, match=r"^ACTIVITY_PORT must differ from METRICS_PORT \(both are 8090\)$"):
        Settings.from_environment(environ, default_database=tmp_path / "p.db")
    # A secret without ACTIVITY_PORT is kept unused: no Activity is served.
    environ.update(ACTIVITY_PORT="", METRICS_PORT="")
    assert Settings.from_environment(environ, default_database=tmp_path / "p.db").activity is None


@pytest.mark.parametrize("secret", ["hunter2", "a secret with spaces in it!", "x" * 129])
def test_a_malformed_client_secret_is_named_and_never_repeated(tmp_path, secret):
    environ = {"DISCORD_TOKEN": "x.y.z", "DISCORD_CLIENT_SECRET": secret}
    with pytest.raises(SettingsError, match=r"^DISCORD_CLIENT_SECRET must be the application's OAuth2") as raised:
        Settings.from_environment(environ, default_database=tmp_path / "p.db")
    assert secret not in str(raised.value)


def test_a_missing_token_names_the_variable_and_the_file_to_put_it_in():
    with pytest.raises(SettingsError, match=r"DISCORD_TOKEN is not set: copy \.env\.example to \.env"):
        Settings.from_environment({"METRICS_PORT": "abc"}, default_database=Path("p.db"))


@pytest.mark.parametrize(
    ("variables", "says"),
    [
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0,2"}, "SHARD_IDS must be distinct numbers from 0 to 1"),
        ({"SHARD_IDS": "0"}, "SHARD_IDS needs SHARD_COUNT"),
        ({"SHARD_COUNT": "zero"}, "SHARD_COUNT must be a whole number"),
        ({"DISCORD_API_BASE": "127.0.0.1:9"}, "DISCORD_API_BASE must be an http(s) URL"),
        ({"DATABASE_URL": "mysql://x/y"}, "DATABASE_URL must look like sqlite:///ABSOLUTE/PATH or postgresql://"),
        ({"DATABASE_URL": "postgresql://bot:hunter2@127.0.0.1:port/db"}, "not a valid PostgreSQL URL"),
        ({"METRICS_PORT": "abc"}, "METRICS_PORT must be a port number from 1 to 65535"),
        ({"METRICS_PORT": "70000"}, "METRICS_PORT must be a port number from 1 to 65535"),
        ({"METRICS_HOST": "not a host"}, "METRICS_HOST must be a host name or an IP address"),
        ({"DEV_GUILD_ID": "my-server"}, "DEV_GUILD_ID must be a Discord server id"),
        ({"GUILD_DATA_GRACE_DAYS": "-3"}, "GUILD_DATA_GRACE_DAYS must be a whole number of days from 0 to 3650"),
        ({"LOG_LEVEL": "LOUD"}, "LOG_LEVEL must be one of DEBUG, INFO, WARNING, WARN, ERROR, CRITICAL"),
        ({"LOG_FILE": "/no/such/folder/pyramide.log"}, "LOG_FILE must be a file in a folder that exists"),
        ({"PYRAMIDE_PURE_SOLVER": "yes"}, "PYRAMIDE_PURE_SOLVER must be 1"),
        ({"ACTIVITY_PORT": "web"}, "ACTIVITY_PORT must be a port number from 1 to 65535"),
        ({"ACTIVITY_PORT": "8090"}, "ACTIVITY_PORT needs DISCORD_CLIENT_SECRET"),
        ({"DISCORD_CLIENT_SECRET": "hunter2"}, "DISCORD_CLIENT_SECRET must be the application's OAuth2 client secret"),
        ({"ACTIVITY_PORT": "8090", "DISCORD_CLIENT_SECRET": "hunter2" * 3, "ACTIVITY_HOST": "?"}, "ACTIVITY_HOST must"),
    ],
)
def test_a_wrong_setting_is_refused_in_one_line_naming_it(tmp_path, variables, says):
    with pytest.raises(SettingsError) as refused:
        Settings.from_environment({"DISCORD_TOKEN": "fake", **variables}, default_database=tmp_path / "p.db")
    message = str(refused.value)
    assert says in message and "\n" not in message
    assert "hunter2" not in message  # a password is never repeated
