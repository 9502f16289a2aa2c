"""The project as a user installs it: a wheel in a fresh virtual environment, away from the checkout."""

import subprocess
import sys
import sysconfig
from pathlib import Path

from pyramide.render import HEIGHT, WIDTH

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_carries_its_fonts_and_renders_a_board(tmp_path):
    dist, venv = tmp_path / "dist", tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", dist, ROOT],
        check=True,
        capture_output=True,
    )
    wheel = next(dist.glob("pyramide-*.whl"))
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", wheel],
        check=True,
        capture_output=True,
    )
    # Pillow and the other dependencies come from the test environment, added after the new venv's own
    # packages; a path added this way runs no .pth file, so the checkout's editable install stays out.
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(site, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    script = (
        "import io, pyramide, pyramide.render as r; from PIL import Image\n"
        "png = r.render_board(pyramide.Game.from_code('PY1-N-AAAAAAS'))\n"
        "print(pyramide.__file__); print(r.ASSETS); print(Image.open(io.BytesIO(png)).size)\n"
    )
    result = subprocess.run([python, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert result.returncode == 0, result.stderr
    package, assets, size = result.stdout.splitlines()
    assert package.startswith(str(venv)) and assets.startswith(str(venv))  # not the checkout
    assert size == str((WIDTH, HEIGHT))
