"""A fresh clone passes its tests with nothing beside it (``outside.py``): without Discord's API description
the harness still plays and its tests still assert, with only the body check left out and a notice in the
run's summary; under ``CI`` the same absence stops the run at its start with one line. The two ends of a run
are pytest runs of their own, in a subprocess, on a small test file through the suite's ``conftest.py``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from discord.http import Route

from tests.support import discord_api
from tests.support.deals import kings_and_pairs
from tests.support.harness import CHANNEL_ID, Harness, Hub, start

ROOT = Path(__file__).resolve().parent.parent

# Two tests of the game whose outcome is their own: one holds, one is wrong on purpose.
SMALL = """
from pyramide import Game


def test_a_deal_keeps_its_code():
    assert Game.from_code("PY1-N-AAAAAAS").code == "PY1-N-AAAAAAS"


def test_a_wrong_expectation_still_fails():
    assert Game.from_code("PY1-N-AAAAAAS").code == "PY1-N-BBBBBBS"
"""


def run(tmp_path: Path, **environment: str) -> subprocess.CompletedProcess[str]:
    """pytest on ``SMALL`` with the suite's conftest, in this run's environment but for ``environment``
    (no ``CI`` unless given, none of the outer run's pytest variables)."""
    test = tmp_path / "test_small.py"
    test.write_text(SMALL, encoding="utf-8")
    kept = {k: v for k, v in os.environ.items() if k != "CI" and not k.startswith(("PYTEST_", discord_api.VARIABLE))}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-n", "0"]
    command += ["--color=no", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(ROOT), "-p", "tests.conftest"]
    return subprocess.run(
        [*command, str(test)], cwd=ROOT, env={**kept, **environment}, capture_output=True, text=True, timeout=60
    )


def test_without_the_description_the_tests_run_and_the_summary_says_so_in_one_line(tmp_path):
    nowhere = tmp_path / "no" / "openapi.json"
    result = run(tmp_path, PYRAMIDE_DISCORD_SPEC=str(nowhere))
    assert result.returncode == pytest.ExitCode.TESTS_FAILED, result.stdout + result.stderr
    assert "1 failed, 1 passed" in result.stdout and "PY1-N-BBBBBBS" in result.stdout
    notice = (
        f"Discord's API description not found at {nowhere}: request bodies were not checked against it; get it "
        "from https://github.com/discord/discord-api-spec (specs/openapi.json) and set PYRAMIDE_DISCORD_SPEC to "
        "its path."
    )
    assert result.stdout.splitlines().count(notice) == 1, result.stdout


def test_under_ci_without_the_description_the_run_stops_at_once_with_one_line(tmp_path):
    nowhere = tmp_path / "no" / "openapi.json"
    result = run(tmp_path, PYRAMIDE_DISCORD_SPEC=str(nowhere), CI="true")
    assert result.returncode == pytest.ExitCode.USAGE_ERROR, result.stdout + result.stderr
    assert result.stdout == ""  # no test ran
    (line,) = [line for line in result.stderr.splitlines() if line]
    assert line.startswith(f"ERROR: Required under CI: Discord's API description not found at {nowhere}; ")
    assert "github.com/discord/discord-api-spec" in line and "set PYRAMIDE_DISCORD_SPEC" in line


async def test_without_the_description_the_harness_plays_a_press(database_url, workers, monkeypatch, tmp_path):
    monkeypatch.setenv(discord_api.VARIABLE, str(tmp_path / "no" / "openapi.json"))
    h = await Harness(database_url, workers=workers).start()
    try:
        await start(h, kings_and_pairs().code)
        sent = await h.press(h.board_button("K♠"))
        assert "K♠ removed (+10)." in sent[-1].content
        assert "K♠" not in [button["label"] for row in h.board()["components"] for button in row["components"]]
    finally:
        await h.stop()


async def test_the_path_the_variable_gives_is_the_only_one_looked_at(tmp_path, monkeypatch):
    """A path given on purpose is never swapped for the description beside the clone; without the file the
    body check is left out (a label over Discord's 80 characters goes through), with it the check is on."""
    given = tmp_path / "openapi.json"
    monkeypatch.setenv(discord_api.VARIABLE, str(given))
    assert discord_api.sought() == given and not discord_api.found()
    hub, route = Hub(), Route("POST", "/channels/{channel_id}/messages", channel_id=CHANNEL_ID)
    row = {"type": 1, "components": [{"type": 2, "style": 2, "custom_id": "a", "label": "x" * 81}]}
    message = await hub.http_request(route, json={"content": "hello", "components": [row]})
    assert message["content"] == "hello" and hub.invalid == []
    given.write_text("{}", encoding="utf-8")
    assert discord_api.found() and Hub().conforming and not Hub(conform=False).conforming
    monkeypatch.delenv(discord_api.VARIABLE)
    assert discord_api.sought() == discord_api.BESIDE
