"""The tests' own layout (tests/README.md, "Layout"): the helpers sit in tests/support/ and tests/reference/,
none named after a module of the product, and no test module imports another (what several share is a
helper); each checker also run on a broken example."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("pyramide", "pyramide_service", "pyramide_bot", "cogs")


def product_names(root: Path) -> set[str]:
    """The names of the product's modules and packages (``play`` for pyramide_service/play.py)."""
    names = {"bot"}
    for package in PRODUCT:
        for path in (root / package).rglob("*.py"):
            names.add(path.parent.name if path.name == "__init__.py" else path.stem)
    return names


def shadowing(helpers: list[Path], product: set[str]) -> list[str]:
    """The helpers named after a product module."""
    return sorted(path.name for path in helpers if path.stem in product and path.stem != "__init__")


def test_no_helper_of_the_tests_is_named_after_a_product_module():
    helpers = [*(ROOT / "tests" / "support").glob("*.py"), *(ROOT / "tests" / "reference").glob("*.py")]
    assert len(helpers) > 20
    assert shadowing(helpers, product_names(ROOT)) == []


def test_the_name_check_finds_a_helper_named_after_a_product_module():
    product = product_names(ROOT)
    assert {"play", "posting", "postgres", "events", "storage", "pyramide_service"} <= product
    assert shadowing([Path("tests/support/play.py"), Path("tests/support/deals.py")], product) == ["play.py"]


def imported_test_modules(source: str) -> list[str]:
    """The test modules an import of ``source`` names (``tests.test_events``, or ``.test_events`` beside it)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = [module] + [f"{module}.{alias.name}" if module else alias.name for alias in node.names]
        found += [name for name in names if name.rpartition(".")[2].startswith("test_")]
    return sorted(set(found))


def test_no_test_module_imports_another():
    modules = sorted([*(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").glob("*.py")])
    found = {str(p.relative_to(ROOT)): imported_test_modules(p.read_text(encoding="utf-8")) for p in modules}
    assert {path: names for path, names in found.items() if names} == {}


def test_the_import_check_finds_a_test_module_imported():
    source = "from tests.test_events import DEALS\nfrom tests import test_stats\nfrom .test_process import x\n"
    source += "import tests.test_inputs\nfrom tests.support.deals import kings_and_pairs\n"
    expected = ["test_process", "tests.test_events", "tests.test_inputs", "tests.test_stats"]
    assert imported_test_modules(source) == expected
