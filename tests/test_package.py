"""The project as a user installs it: a wheel in a fresh virtual environment, away from the checkout."""

import shlex
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
        "print(r.PALETTE_FILE.is_file())\n"
    )
    result = subprocess.run([python, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert result.returncode == 0, result.stderr
    package, assets, size, palette = result.stdout.splitlines()
    assert palette == "True"  # the palette is shipped, not computed at every start
    assert package.startswith(str(venv)) and assets.startswith(str(venv))  # not the checkout
    assert size == str((WIDTH, HEIGHT))


def test_the_container_image_builds_from_files_that_exist_and_runs_the_bot_as_a_user():
    import re

    lines = [line.strip() for line in (ROOT / "Dockerfile").read_text().splitlines()]
    stages = [line for line in lines if line.startswith("FROM ")]
    assert stages and all(re.match(r"FROM python:3\.1[1-9]-slim", s) for s in stages)
    for line in lines:
        if line.startswith("COPY ") and "--from=" not in line:
            *sources, _ = line.split()[1:]
            for source in sources:
                assert (ROOT / source).exists(), f"{source} is not in the build context"
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    copied = {line.split()[1] for line in lines if line.startswith("COPY ") and "--from=" not in line}
    assert {package.split(".")[0] for package in declared} <= copied  # every package of the wheel is built in
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".venv" in ignored and ".env" in ignored and "*.db" in ignored  # no secrets, no databases
    final = lines[max(i for i, line in enumerate(lines) if line.startswith("FROM ")) :]
    user = next(line for line in final if line.startswith("USER "))
    assert user.split()[1] not in ("root", "0")
    assert "VOLUME /data" in final and any("PYRAMIDE_DB=/data/" in line for line in final)
    assert 'ENTRYPOINT ["/venv/bin/python", "/app/bot.py"]' in final
    build = "\n".join(lines[: lines.index(final[0])])
    assert "gcc" in build and "has_compiled_core()" in build  # the compiled solver core is built in, checked
    assert "--require-hashes -r requirements/bot.lock" in build  # and only what the bot runs on


def test_compose_runs_the_image_with_its_data_in_a_volume_and_a_health_check():
    import yaml

    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    bot = compose["services"]["bot"]
    assert bot["build"] == "." and bot["env_file"] == ".env"
    assert "data:/data" in bot["volumes"] and "data" in compose["volumes"]
    assert bot["environment"]["PYRAMIDE_DB"].startswith("/data/")
    port = bot["environment"]["METRICS_PORT"]
    assert any(f":{port}/healthz" in part for part in bot["healthcheck"]["test"])
    assert bot["restart"] == "unless-stopped" and bot["stop_signal"] == "SIGTERM"


def test_the_systemd_unit_restarts_on_failure_and_stops_with_sigterm():
    import configparser

    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(ROOT / "deploy" / "pyramide.service")
    service = unit["Service"]
    assert service["Restart"] == "on-failure" and service["KillSignal"] == "SIGTERM"
    assert service["ExecStart"].endswith("bot.py") and service["User"] != "root"
    assert set(service["RestartPreventExitStatus"].split()) == {"2", "3"}  # bot.py's configuration errors
    assert unit["Install"]["WantedBy"] == "multi-user.target"


def test_the_systemd_template_gives_each_instance_its_shard_range():
    import configparser

    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(ROOT / "deploy" / "pyramide@.service")
    service = unit["Service"]
    assert service["Restart"] == "on-failure" and set(service["RestartPreventExitStatus"].split()) == {"2", "3"}
    # What systemd runs for pyramide@2-3 ("$$" is a "$" for the shell, %i the instance), with the bot
    # replaced by a line showing the shards it would get.
    command = service["ExecStart"].replace("$$", "$").replace("%i", "2-3")
    command = command.replace("exec /opt/pyramide/.venv/bin/python /opt/pyramide/bot.py", 'echo "$SHARD_IDS"')
    result = subprocess.run(shlex.split(command), capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "2,3"


def test_the_postgresql_compose_file_runs_processes_that_share_every_shard_once_on_its_database():
    import re
    from urllib.parse import urlsplit

    import yaml

    from pyramide_bot.settings import Deployment, database_url

    compose = yaml.safe_load((ROOT / "compose.postgres.yaml").read_text())
    db = compose["services"]["db"]
    assert "pgdata:/var/lib/postgresql/data" in db["volumes"] and "pgdata" in compose["volumes"]
    assert "pg_isready" in db["healthcheck"]["test"]
    assert db["environment"]["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD")  # from .env, not written here
    bots = {name: service for name, service in compose["services"].items() if name != "db"}
    assert len(bots) >= 2
    shards: list[int] = []
    for service in bots.values():
        assert service["depends_on"]["db"]["condition"] == "service_healthy"
        assert service["env_file"] == ".env" and service["stop_signal"] == "SIGTERM"
        environment = {
            key: re.sub(r"\$\{POSTGRES_PASSWORD[^}]*\}", "secret", value)
            for key, value in service["environment"].items()
        }
        url = urlsplit(database_url(environment, ROOT / "pyramide.db"))  # what bot.py makes of it
        assert (url.scheme, url.hostname, url.port, url.path) == ("postgresql", "db", 5432, "/pyramide")
        assert url.username == db["environment"]["POSTGRES_USER"] and url.password == "secret"
        deployment = Deployment.from_environment(environment)
        assert deployment.shard_count == 4
        shards += list(deployment.shard_ids or ())
    assert sorted(shards) == [0, 1, 2, 3]  # every shard held by exactly one process
