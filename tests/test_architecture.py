"""What import-linter (``[tool.importlinter]`` in pyproject.toml) cannot check: no import hidden inside a
function in the Discord layer, no module of it over 400 lines, the cogs blind to the application even under
TYPE_CHECKING; and the engine's command line."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


DISCORD_LAYER = sorted([*(ROOT / "cogs").rglob("*.py"), *(ROOT / "pyramide_bot").rglob("*.py"), ROOT / "bot.py"])
OURS = ("cogs", "pyramide_bot", "bot")  # the Discord layer's packages (and bot.py, the entry point)
MAX_LINES = 400


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _our_target(node: ast.Import | ast.ImportFrom) -> str | None:
    """The module of the Discord layer an import names, or None for anything else."""
    if isinstance(node, ast.ImportFrom):
        if node.level > 0:
            return "." * node.level + (node.module or "")
        names = [node.module or ""]
    else:
        names = [alias.name for alias in node.names]
    return next((name for name in names if name.split(".")[0] in OURS), None)


def _imports_inside_functions(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            for node in ast.walk(function):
                if isinstance(node, ast.Import | ast.ImportFrom) and (target := _our_target(node)) is not None:
                    found.append((node.lineno, target))
    return found


@pytest.mark.parametrize("path", DISCORD_LAYER, ids=_name)
def test_no_import_inside_a_function_between_modules_of_the_discord_layer(path):
    # import-linter sees an import wherever it is; hidden in a function it dodges a circle at import time
    # (where one part must react to another: an event after the commit, or a collaborator handed in).
    found = _imports_inside_functions(ast.parse(path.read_text(encoding="utf-8")))
    assert not found, f"{_name(path)} imports inside a function: {found}"


def test_the_walk_finds_an_import_hidden_in_a_function():
    tree = ast.parse(
        "import os\n\ndef f():\n    from .race import progress\n    import discord\n    import cogs.common\n"
    )
    assert _imports_inside_functions(tree) == [(4, ".race"), (6, "cogs.common")]


@pytest.mark.parametrize("path", DISCORD_LAYER, ids=_name)
def test_no_module_of_the_discord_layer_is_over_400_lines(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{_name(path)} has {lines} lines: split it by job"


@pytest.mark.parametrize("path", sorted((ROOT / "cogs").rglob("*.py")), ids=_name)
def test_the_cogs_never_import_the_application_nor_the_entry_point(path):
    # Not even under TYPE_CHECKING: the cogs see the bot as ``cogs.common.Host``. (import-linter checks
    # pyramide_bot; bot.py is a module outside its root packages.)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import | ast.ImportFrom) and (target := _our_target(node)) is not None:
            assert target.split(".")[0] not in ("bot", "pyramide_bot"), f"{_name(path)}:{node.lineno} imports {target}"


def test_terminal_play_takes_positions_card_names_draw_and_undo():
    typed = "23\nK♦\n26\nd\nu\nzz\nq\n"
    result = subprocess.run(
        [sys.executable, "-m", "pyramide", "play", "PY1-N-AAAAAAS"],
        input=typed,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
        timeout=60,
    )
    out = result.stdout
    assert "K♠ removed (+10)." in out  # position 23 of PY1-N-AAAAAAS is K♠
    assert "This card is blocked by another card" in out  # K♦ lies in row 6
    assert "3♥ selected" in out  # position 26
    assert "You drew 3♣." in out and "Move taken back." in out
    assert "“zz” is not a card" in out


def test_show_rejects_a_bad_code_with_status_2():
    result = subprocess.run(
        [sys.executable, "-m", "pyramide", "show", "PY1-N-XXXX"], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert result.returncode == 2 and "invalid deal code" in result.stderr


def test_the_rules_document_names_tests_that_exist():
    import re

    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(test_[a-z0-9_]+)`", text))
    defined = {
        node.name
        for path in (ROOT / "tests").glob("test_*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    assert len(named) >= 20 and named <= defined, sorted(named - defined)


# --- discord.py internals stay in one module of the tests, under a version check --------------------------
DISCORD_PRIVATE = ("_connection", "_async_setup_hook", "_add_guild_from_data", "_get_state", "_ready")
DISCORD_PRIVATE_MODULES = ("discord.webhook.async_", "discord.state")
HARNESS_CODE = sorted(
    path
    for path in [*(ROOT / "tests").glob("*.py"), *(ROOT / "bench").glob("*.py")]
    if path.name != "discord_internals.py"
)


def _discord_internals_used(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in DISCORD_PRIVATE:
            found.append((node.lineno, node.attr))
        elif isinstance(node, ast.ImportFrom) and node.module in DISCORD_PRIVATE_MODULES:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name in DISCORD_PRIVATE_MODULES]
    return found


@pytest.mark.parametrize("path", HARNESS_CODE, ids=_name)
def test_only_tests_discord_internals_reaches_into_discord_py(path):
    found = _discord_internals_used(ast.parse(path.read_text(encoding="utf-8")))
    assert not found, f"{_name(path)} uses discord.py internals outside tests/discord_internals.py: {found}"


def test_the_walk_finds_discord_internals():
    tree = ast.parse(
        "from discord.webhook.async_ import async_context\n"
        "bot._connection.parse_interaction_create(p)\n"
        "await bot._async_setup_hook()\n"
        "bot.http.request = f\n"
    )
    expected = [(1, "discord.webhook.async_"), (2, "_connection"), (3, "_async_setup_hook")]
    assert _discord_internals_used(tree) == expected


def test_an_untested_discord_py_is_refused_naming_the_tested_range():
    from tests import discord_internals

    assert discord_internals.TESTED == ((2, 7), (2, 8))  # read from pyproject.toml's pin
    discord_internals.check_version("2.7.9")
    for version in ("2.8.0", "2.6.3", "3.0.0a"):
        with pytest.raises(discord_internals.UntestedDiscordVersion, match=r"discord\.py>=2\.7,<2\.8"):
            discord_internals.check_version(version)
    bot_in = (ROOT / "requirements" / "bot.in").read_text(encoding="utf-8")
    assert "discord.py>=2.7,<2.8" in bot_in.splitlines()  # the lock's source says the same as the pin


# --- a press's facts are worked out once, on its Answer --------------------------------------------------------
# Who may still ask the interaction itself for the bot, the language or the place: the Answer (once, when the
# interaction arrives) and the autocomplete, which is answered without an Answer.
FACTS = ("bot_of", "language", "place_of")
ASKS_THE_INTERACTION = {("cogs/answer.py", "__init__"), ("cogs/pyramide/adapters.py", "card_choices")}


def _fact_calls(tree: ast.AST) -> list[tuple[str, str]]:
    """(enclosing function, fact function) for each call of one of ``FACTS``."""
    found = []
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FACTS:
                    found.append((function.name, node.func.id))
    return found


def test_a_press_asks_for_its_bot_language_and_place_once_on_its_answer():
    calls = {
        (_name(path), function, fact)
        for path in sorted((ROOT / "cogs").rglob("*.py"))
        for function, fact in _fact_calls(ast.parse(path.read_text(encoding="utf-8")))
    }
    outside = {(path, function, fact) for path, function, fact in calls if (path, function) not in ASKS_THE_INTERACTION}
    assert not outside, f"flows ask the interaction again instead of reading answer.bot/.lang/.place: {sorted(outside)}"
    assert {fact for path, _, fact in calls if path == "cogs/answer.py"} == set(FACTS)


def test_the_walk_finds_a_flow_asking_again():
    tree = ast.parse("async def flow(answer):\n    bot = bot_of(answer.interaction)\n    x = language(i)\n")
    assert _fact_calls(tree) == [("flow", "bot_of"), ("flow", "language")]


# --- the bot as the cogs see it is typed: no Any, no cast (but the one that makes an interaction's client a Host)
def _any_or_cast(source: str) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if (isinstance(node, ast.Name) and node.id in ("Any", "cast"))
        or (isinstance(node, ast.Attribute) and node.attr in ("Any", "cast"))
    ]


def test_the_race_flows_and_the_host_are_typed_without_any_or_casts():
    assert not _any_or_cast((ROOT / "cogs" / "pyramide" / "race.py").read_text(encoding="utf-8"))
    common = ast.parse((ROOT / "cogs" / "common.py").read_text(encoding="utf-8"))
    host = next(node for node in common.body if isinstance(node, ast.ClassDef) and node.name == "Host")
    assert not _any_or_cast(ast.unparse(host)), "cogs.common.Host names Any"
    assert len(_any_or_cast(ast.unparse(common))) == 1, "one cast in cogs.common: bot_of's"
    for path in sorted((ROOT / "cogs").rglob("*.py")):
        if path.name != "common.py":
            source = path.read_text(encoding="utf-8")
            assert "cast(" not in source, f"{_name(path)} casts: the cogs see the bot as a typed Host"


def test_the_walk_finds_any_and_casts():
    assert _any_or_cast("from typing import Any, cast\nx: Any = cast(int, y)\n") == [2, 2]


# --- no private attribute of another object in the Discord layer (discord.py's, aiohttp's, ...) ------------------
def _private_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """``x._name`` where ``x`` is not ``self`` or ``cls``: another object's (or library's) private attribute."""
    return [
        (node.lineno, ast.unparse(node))
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    ]


@pytest.mark.parametrize("path", DISCORD_LAYER, ids=_name)
def test_the_discord_layer_reads_no_private_attribute_of_another_object(path):
    # The address overrides (cogs/internals.py) set public class attributes; nothing reads a library's internals.
    found = _private_reads(ast.parse(path.read_text(encoding="utf-8")))
    assert not found, f"{_name(path)} reads private attributes: {found}"


def test_the_walk_finds_a_private_attribute_of_another_object():
    tree = ast.parse("port = site._server.sockets\nself._kept = 1\nx = bot._connection.user\n")
    assert _private_reads(tree) == [(1, "site._server"), (3, "bot._connection")]
