"""The arrows of DESIGN.md: the engine is pure, only the renderer draws, the cogs only glue."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STDLIB = set(sys.stdlib_module_names)


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", sorted((ROOT / "pyramide").rglob("*.py")), ids=lambda p: p.name)
def test_the_engine_package_never_imports_discord_and_only_render_imports_pillow(path):
    found = imports(path)
    assert "discord" not in found
    if path.name != "render.py":
        assert "PIL" not in found


def test_game_imports_only_the_standard_library():
    for name in ("game.py", "cards.py", "codes.py", "rules.py", "events.py"):
        outside = imports(ROOT / "pyramide" / name) - STDLIB
        assert not outside, f"{name} imports {outside}"


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
