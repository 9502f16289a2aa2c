"""What import-linter (``[tool.importlinter]`` in pyproject.toml) cannot check: no import hidden inside a
function in the Discord layer, no module of it over 400 lines, the cogs blind to the application even under
TYPE_CHECKING; the house rules (no engine module over 500 lines, no module-level state written at run time,
no private attribute of another library's object, every import declared, mypy, ruff and import-linter as
configured), each also run on a broken example; and the engine's command line."""

import ast
import json
import re
import subprocess
import sys
import tomllib
import types
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


DISCORD_PACKAGES = ("cogs", "pyramide_discord", "pyramide_bot")
DISCORD_LAYER = sorted([*(p for name in DISCORD_PACKAGES for p in (ROOT / name).rglob("*.py")), ROOT / "bot.py"])
OURS = ("cogs", "pyramide_discord", "pyramide_bot", "bot")  # the Discord layer's packages (and bot.py, the entry point)
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
    # Not even under TYPE_CHECKING: the cogs see the bot as ``pyramide_discord.host.Host``. (import-linter checks
    # pyramide_bot; bot.py is a module outside its root packages.)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import | ast.ImportFrom) and (target := _our_target(node)) is not None:
            assert target.split(".")[0] not in ("bot", "pyramide_bot"), f"{_name(path)}:{node.lineno} imports {target}"


# import-linter keeps pyramide_service.storage and the drivers out of cogs/ (a contract, tried below on a broken
# example); this walk says the same of each file, and also that no cog reaches storage through an attribute
# (``bot.storage``, ``service.storage``), which no import shows.
COGS = sorted((ROOT / "cogs").rglob("*.py"))
DATABASES = ("pyramide_service.storage", "asyncpg", "sqlite3", "aiosqlite")


def _database_imports(source: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        found += [(node.lineno, n) for n in names if any(n == d or n.startswith(d + ".") for d in DATABASES)]
    return found


def _storage_attributes(source: str) -> list[int]:
    tree = ast.parse(source)
    return sorted(node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "storage")


@pytest.mark.parametrize("path", COGS, ids=_name)
def test_the_cogs_import_no_storage_nor_a_database_and_reach_no_storage_attribute(path):
    source = path.read_text(encoding="utf-8")
    assert _database_imports(source) == []
    assert _storage_attributes(source) == [], f"{_name(path)} reaches storage: call the application's services"


def test_the_storage_walk_finds_a_storage_import():
    source = "import asyncpg\nfrom pyramide_service.storage.achievements import Rarity\nfrom pyramide_service import A"
    assert _database_imports(source) == [(1, "asyncpg"), (2, "pyramide_service.storage.achievements")]


def test_the_storage_walk_finds_storage_reached_through_an_attribute():
    assert _storage_attributes("x = bot.events\nawait answer.bot.storage.game(1)\ny = bot.events.storage") == [2, 3]


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


# ------------------------------------------------------------------ the house rules of issue #33
# Each rule is a checker over source text, run on every module it governs, and once on a deliberately
# broken example written to tmp_path, so that a checker that found nothing could not pass unnoticed.

ENGINE = sorted((ROOT / "pyramide").rglob("*.py"))
ENGINE_MAX_LINES = 500
APPLICATION = sorted((ROOT / "pyramide_service").rglob("*.py"))
PRODUCT = sorted([*ENGINE, *APPLICATION, *DISCORD_LAYER])  # every module that runs in the bot
OUR_PACKAGES = ("pyramide", "pyramide_service", "pyramide_discord", "cogs", "pyramide_bot", "bot")


def lines_over(path: Path, limit: int) -> int | None:
    """The number of lines of ``path`` when it is over ``limit``."""
    lines = len(path.read_text(encoding="utf-8").splitlines())
    return lines if lines > limit else None


@pytest.mark.parametrize("path", ENGINE, ids=_name)
def test_no_module_of_the_engine_is_over_500_lines(path):
    lines = lines_over(path, ENGINE_MAX_LINES)
    assert lines is None, f"{_name(path)} has {lines} lines: split it by job"


def test_the_line_count_finds_a_module_too_long(tmp_path):
    long = tmp_path / "long.py"
    long.write_text("x = 1\n" * (ENGINE_MAX_LINES + 1))
    assert lines_over(long, ENGINE_MAX_LINES) == ENGINE_MAX_LINES + 1
    long.write_text("x = 1\n" * ENGINE_MAX_LINES)
    assert lines_over(long, ENGINE_MAX_LINES) is None


# --- no module-level mutable state written at run time
MUTABLE_CALLS = {"dict", "list", "set", "bytearray", "OrderedDict", "defaultdict", "deque", "Counter", "LRU"}
MUTATORS = {
    "append", "extend", "insert", "pop", "popitem", "clear", "update", "setdefault", "add", "discard", "remove",
    "move_to_end", "appendleft", "extendleft", "put", "sort", "reverse",
}  # fmt: skip
# Module-level state that may change while the bot runs, each with its reason (DESIGN.md: "pure
# memoisation of constant drawing is fine"). Nothing else may.
ALLOWED_STATE = {
    ("pyramide/render/sprites.py", "text_runs"): "memoised drawing: a run of text is a pure function of its key",
    ("pyramide/render/sprites.py", "_faces"): "memoised drawing: a language's faces in a style, a function of both",
    ("pyramide/render/board.py", "_layers"): "memoised drawing: a pyramid layer is a pure function of its key",
    ("pyramide/render/board.py", "_regions"): "memoised drawing: a pile or footer region, a function of its key",
    ("pyramide/solver/native.py", "core"): "switched off once at a process's start (settings), before any search",
}


def _is_mutable(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Dict | ast.List | ast.Set | ast.DictComp | ast.ListComp | ast.SetComp):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return name in MUTABLE_CALLS
    return False


def _module_level(tree: ast.Module) -> list[ast.stmt]:
    """The statements run at import: the module's own, and those inside its top-level if/try blocks."""
    found: list[ast.stmt] = []
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        found.append(node)
        if isinstance(node, ast.If | ast.Try):
            todo.extend([*node.body, *node.orelse, *getattr(node, "finalbody", []), *getattr(node, "handlers", [])])
        elif isinstance(node, ast.ExceptHandler):
            todo.extend(node.body)
    return found


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Subscript | ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def mutable_state(source: str) -> list[tuple[int, str]]:
    """Module-level state written after import: a module-level dict, list, set (or another mutable
    container, an ``LRU`` included) that a function of the module changes (an item set or deleted, a
    mutating method called, an augmented assignment), and every name a ``global`` statement rebinds.
    Constants (built at import however they are built), tuples, frozensets and ``functools.cache`` pass."""
    tree = ast.parse(source)
    containers = {}
    for node in _module_level(tree):
        if not isinstance(node, ast.Assign | ast.AnnAssign):
            continue
        targets, value = (node.targets if isinstance(node, ast.Assign) else [node.target]), node.value
        for target in targets:
            if isinstance(target, ast.Name) and _is_mutable(value):
                containers[target.id] = node.lineno
    found: set[tuple[int, str]] = set()
    functions = [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)]
    for node in (node for function in functions for node in ast.walk(function)):  # what runs after import
        if isinstance(node, ast.Global):
            found.update((node.lineno, name) for name in node.names)
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
            for target in targets:
                subscripted = isinstance(target, ast.Subscript | ast.Attribute) or isinstance(node, ast.AugAssign)
                if subscripted and (name := _root(target)) in containers:
                    found.add((node.lineno, name))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            name = _root(node.func.value)
            if name in containers:
                found.add((node.lineno, name))
    return sorted(found)


@pytest.mark.parametrize("path", PRODUCT, ids=_name)
def test_no_module_level_state_is_written_at_run_time(path):
    found = [
        (line, name)
        for line, name in mutable_state(path.read_text(encoding="utf-8"))
        if (_name(path), name) not in ALLOWED_STATE
    ]
    assert not found, f"{_name(path)} writes module-level state at run time (line, name): {found}"


def test_the_state_check_finds_module_level_state_written_at_run_time(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text(
        "import functools\nfrom collections import OrderedDict\n\n"
        "LIMITS = {'hint': 6}  # read only: fine\nNAMES = ('a', 'b')\nSEEN = frozenset({1})\nLIMITS.update(race=4)\n"
        "_KNOWN: OrderedDict[str, int] = OrderedDict()\nCACHE = {}\nLOG = []\ncount = 0\n\n"
        "@functools.cache\ndef memo(x):\n    return x\n\n"
        "def remember(code, rating):\n    _KNOWN[code] = rating\n    _KNOWN.move_to_end(code)\n\n"
        "def note(x):\n    LOG.append(x)\n    CACHE.setdefault(x, []).append(1)\n    print(LIMITS['hint'])\n\n"
        "def bump():\n    global count\n    count += 1\n"
    )
    found = mutable_state(broken.read_text())
    assert found == [(18, "_KNOWN"), (19, "_KNOWN"), (22, "LOG"), (23, "CACHE"), (27, "count")]


# --- no private attribute of another library's object
# Names with a leading underscore that the standard library documents as public (os._exit, the
# namedtuple API).
PUBLIC_UNDERSCORED = {"_exit", "_replace", "_asdict", "_fields", "_make", "_field_defaults"}
# Python's own dunders (its data model): any other ``x.__name__``-shaped attribute is a library's private
# part (discord.py's ``__discord_ui_compiled_template__``).
PYTHON_DUNDERS = {
    *dir(type),
    *dir(types.FunctionType),
    *dir(types.ModuleType),
    *dir(types.CodeType),
    "__slots__",
    "__wrapped__",
    "__file__",
    "__path__",
    "__version__",
}
# The one module allowed to reach into discord.py (Route.BASE and DEFAULT_GATEWAY have no public
# alternative: see its docstring).
INTERNALS_MODULE = "pyramide_discord/internals.py"


def private_attributes(source: str) -> list[tuple[int, str]]:
    """Every ``x._name`` where ``x`` is neither ``self``, ``cls`` nor a module of ours imported by name, and
    ``_name`` is not defined in this module (a private of a class of the same module, used by its
    neighbour, is ours to use): the private parts of another library's objects."""
    tree = ast.parse(source)
    ours: set[str] = set()  # names bound to our own modules
    defined: set[str] = set()  # private names this module defines
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            ours.update((a.asname or a.name).split(".")[0] for a in node.names if a.name.split(".")[0] in OUR_PACKAGES)
        elif isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] in OUR_PACKAGES):
            ours.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            defined.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or isinstance(node.ctx, ast.Store):
            continue
        name = node.attr
        dunder = name.startswith("__") and name.endswith("__")
        if not name.startswith("_") or name in PUBLIC_UNDERSCORED or name in defined or name in PYTHON_DUNDERS:
            continue
        if name.startswith("__") and not dunder:  # a mangled name: a class's own
            continue
        if isinstance(node.value, ast.Name) and node.value.id in {"self", "cls", *ours}:
            continue
        found.append((node.lineno, name))
    return sorted(found)


@pytest.mark.parametrize("path", [p for p in PRODUCT if _name(p) != INTERNALS_MODULE], ids=_name)
def test_no_private_attribute_of_another_librarys_object(path):
    found = private_attributes(path.read_text(encoding="utf-8"))
    assert not found, f"{_name(path)} reaches into another library's private attributes (line, name): {found}"


def test_the_private_attribute_check_finds_another_librarys_internals(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text(
        "import os\nimport aiosqlite\nfrom pyramide import render\n\n"
        "class Mine:\n    def __init__(self):\n        self._items = {}\n\n"
        "    def size(self, other):\n        return len(self._items) + len(other._items)\n\n"
        "async def run(connection: aiosqlite.Connection, work):\n"
        "    await connection._execute(work, connection._conn)\n"
        "    render._layers.clear()  # a module of ours: its own business\n"
        "    site._server.sockets\n    os._exit(0)\n"
        "    patterns = [item.__discord_ui_compiled_template__ for item in items if item.__name__]\n"
    )
    expected = [(13, "_conn"), (13, "_execute"), (15, "_server"), (17, "__discord_ui_compiled_template__")]
    assert private_attributes(broken.read_text()) == expected


# --- every third-party import declared
def third_party_imports(source: str) -> set[str]:
    """The top-level names of every module ``source`` imports, anywhere in it, that is neither in the
    standard library nor ours."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in OUR_PACKAGES and n != "__future__"}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared_distributions(pyproject: Path) -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    return [_normal(re.match(r"[A-Za-z0-9._-]+", spec)[0]) for spec in project.get("dependencies", [])]


def undeclared(imports: set[str], declared: list[str]) -> list[str]:
    """The imported names no declared distribution provides (``importlib.metadata`` maps them)."""
    providers = packages_distributions()
    return sorted(n for n in imports if not {_normal(d) for d in providers.get(n, [n])} & set(declared))


def test_every_third_party_import_of_the_bot_is_declared():
    imports = set().union(*(third_party_imports(p.read_text(encoding="utf-8")) for p in PRODUCT))
    assert {"discord", "PIL", "asyncpg"} <= imports  # the walk sees the imports
    declared = declared_distributions(ROOT / "pyproject.toml")
    missing = undeclared(imports, declared)
    assert not missing, f"imported but not in pyproject.toml's dependencies: {missing}"
    assert len(declared) == len(set(declared)), f"a dependency declared twice: {sorted(declared)}"


def test_the_declaration_check_finds_an_undeclared_import(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["discord.py>=2.7", "Pillow"]\n')
    source = "import os\nimport discord\nfrom PIL import Image\nimport yarl\n\ndef f():\n    import aiohttp.web\n"
    imports = third_party_imports(source)
    assert imports == {"discord", "PIL", "yarl", "aiohttp"}
    assert undeclared(imports, declared_distributions(tmp_path / "pyproject.toml")) == ["aiohttp", "yarl"]


# --- mypy: --strict on the engine, every function typed in the Discord layer
def test_mypy_holds_the_engine_to_strict_and_the_discord_layer_to_typed_functions(tmp_path):
    for package in ("pyramide", "cogs", "elsewhere"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
        (tmp_path / package / "broken.py").write_text(
            "def untyped(x):\n    return x\n\n\ndef bare(x: list) -> list:\n    return x\n"
        )
    config = ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path / "cache")]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", *config, "pyramide", "cogs", "elsewhere"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    errors = sorted(
        (path, int(line), message.rsplit("[", 1)[-1].rstrip("]"))
        for path, line, _, message in (row.split(":", 3) for row in result.stdout.splitlines() if ": error:" in row)
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert errors == [  # and nothing of ``elsewhere``, outside both
        ("cogs/broken.py", 1, "no-untyped-def"),
        ("pyramide/broken.py", 1, "no-untyped-def"),
        ("pyramide/broken.py", 5, "type-arg"),
    ]


# --- ruff and import-linter, each caught on a broken example
def test_ruff_with_the_projects_rules_refuses_an_untyped_function_and_an_unused_import(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import os\n\n\ndef untyped(x):\n    return x\n")
    options = ["--config", str(ROOT / "pyproject.toml"), "--output-format", "concise", "--no-cache"]
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", *options, str(broken)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    codes = sorted(line.split(" ")[1] for line in result.stdout.splitlines() if line.startswith(str(broken)))
    assert result.returncode == 1 and codes == ["ANN001", "ANN201", "F401"], result.stdout


def test_import_linter_with_the_projects_contracts_refuses_an_engine_importing_discord_and_cogs_importing_storage(
    tmp_path,
):
    # One run for both contracts (each run of lint-imports costs a second or so).
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    alone = next(c for c in config["contracts"] if c["name"].startswith("The library stands alone"))
    no_storage = next(c for c in config["contracts"] if c["name"].startswith("The Discord layer calls the application"))
    (tmp_path / "pyproject.toml").write_text(
        '[tool.importlinter]\nroot_packages = ["pyramide", "pyramide_service", "pyramide_bot", "cogs"]\n'
        "include_external_packages = true\n"
        + "".join(
            "\n[[tool.importlinter.contracts]]\n" + "".join(f"{key} = {json.dumps(v)}\n" for key, v in c.items())
            for c in (alone, no_storage)
        )
    )
    packages = (
        ("pyramide", "import discord\n"),
        ("pyramide_service", ""),
        ("pyramide_service/storage", ""),
        ("pyramide_service/events", "from . import storage\n"),  # a service over storage: the cogs may call it
        ("pyramide_bot", ""),
        ("cogs", "from pyramide_service import events\n"),
        ("cogs/daily", "from pyramide_service.storage import DailyTaken\n"),
    )
    for package, source in packages:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text(source)
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint), "--no-cache"], capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False
    )
    assert result.returncode == 1 and "BROKEN" in result.stdout and "pyramide -> discord" in result.stdout, (
        result.stdout + result.stderr
    )
    assert "cogs.daily -> pyramide_service.storage" in result.stdout, result.stdout
    assert "pyramide_service.events" not in result.stdout, result.stdout  # through a service: allowed


def test_import_linter_with_the_projects_contract_refuses_health_importing_the_bot_even_for_types(tmp_path):
    """The app shell's health is handed the figures it reads: the contract fails if it imports the bot
    again, even under TYPE_CHECKING (the circle app -> health -> app)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    shell = next(c for c in config["contracts"] if c.get("containers") == ["pyramide_bot"])
    (tmp_path / "pyproject.toml").write_text(
        '[tool.importlinter]\nroot_packages = ["pyramide_bot"]\n\n'
        "[[tool.importlinter.contracts]]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in shell.items())
    )
    (tmp_path / "pyramide_bot").mkdir()
    modules = {
        "__init__": "",
        "process": "from . import app\n",
        "app": "from .health import Health\n",
        "health": "from typing import TYPE_CHECKING\n\nHealth = object\nif TYPE_CHECKING:\n    from .app import Bot\n",
        "command_sync": "",
        "translator": "",
        "logs": "",
        "settings": "",
    }
    for name, source in modules.items():
        (tmp_path / "pyramide_bot" / f"{name}.py").write_text(source)
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint), "--no-cache"], capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False
    )
    assert result.returncode == 1 and "pyramide_bot.health -> pyramide_bot.app" in result.stdout, (
        result.stdout + result.stderr
    )


# --- discord.py internals stay in one module of the tests, under a version check --------------------------
DISCORD_PRIVATE = ("_connection", "_async_setup_hook", "_add_guild_from_data", "_get_state", "_ready")
DISCORD_PRIVATE_MODULES = ("discord.webhook.async_", "discord.state")
HARNESS_CODE = sorted(
    path
    for path in [*(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").glob("*.py")]
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
    assert not found, f"{_name(path)} uses discord.py internals outside tests/support/discord_internals.py: {found}"


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
    from tests.support import discord_internals

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
ASKS_THE_INTERACTION = {
    ("cogs/answer.py", "__init__"),
    ("cogs/pyramide/adapters.py", "card_choices"),
    ("cogs/pyramide/events.py", "event_choices"),  # an autocomplete: no Answer
}


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
    hosts = ast.parse((ROOT / "pyramide_discord" / "host.py").read_text(encoding="utf-8"))
    host = next(node for node in hosts.body if isinstance(node, ast.ClassDef) and node.name == "Host")
    assert not _any_or_cast(ast.unparse(host)), "pyramide_discord.host.Host names Any"
    assert len(_any_or_cast(ast.unparse(common))) == 1, "one cast in cogs.common: bot_of's"
    for path in sorted((ROOT / "cogs").rglob("*.py")):
        if path.name != "common.py":
            source = path.read_text(encoding="utf-8")
            assert "cast(" not in source, f"{_name(path)} casts: the cogs see the bot as a typed Host"


def test_the_walk_finds_any_and_casts():
    assert _any_or_cast("from typing import Any, cast\nx: Any = cast(int, y)\n") == [2, 2]


# --- one way to tell a change: the application's subscription (pyramide_service.changes), no event of our own
def _own_events(source: str) -> list[tuple[int, str]]:
    """Every ``x.dispatch("name", ...)`` (an event of discord.py's client made up by us) and every
    ``on_pyramide_*`` listener: a change told around the application's ``Changes``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "dispatch"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.append((node.lineno, str(node.args[0].value)))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("on_pyramide_"):
            found.append((node.lineno, node.name))
    return sorted(found)


@pytest.mark.parametrize("path", PRODUCT, ids=_name)
def test_every_change_is_told_through_the_applications_one_subscription(path):
    found = _own_events(path.read_text(encoding="utf-8"))
    assert not found, f"{_name(path)} tells a change around pyramide_service.changes (line, event): {found}"


def test_the_walk_finds_an_event_of_our_own():
    source = (
        "async def over(bot, event_id):\n    bot.dispatch('pyramide_event_over', event_id)\n\n"
        "class Cog:\n    async def on_pyramide_event_over(self, event_id): ...\n"
        "    async def on_interaction(self, interaction): ...\n"
    )
    assert _own_events(source) == [(2, "pyramide_event_over"), (5, "on_pyramide_event_over")]
