# The Pyramide bot as a container: a slim Python base, the compiled solver core built in, a non-root
# user, the database in a volume. Build: docker build -t pyramide .   Run: see compose.yaml.
FROM python:3.11-slim AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY requirements/bot.lock requirements/bot.lock
RUN python -m venv /venv \
    && /venv/bin/pip install --no-cache-dir --disable-pip-version-check --require-hashes -r requirements/bot.lock
COPY pyproject.toml setup.py README.md ./
COPY assets assets
COPY pyramide pyramide
COPY pyramide_service pyramide_service
COPY pyramide_bot pyramide_bot
COPY pyramide_discord pyramide_discord
COPY cogs cogs
RUN /venv/bin/pip install --no-cache-dir --disable-pip-version-check --no-deps --no-build-isolation . \
    && /venv/bin/python -c "from pyramide.solver import has_compiled_core; assert has_compiled_core()"

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 pyramide && mkdir /data && chown pyramide /data
COPY --from=build /venv /venv
COPY bot.py /app/bot.py
WORKDIR /app
USER pyramide
ENV PYRAMIDE_DB=/data/pyramide.db PYTHONUNBUFFERED=1
VOLUME /data
# SIGTERM: the presses in flight are finished and the database closed before the process exits.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/venv/bin/python", "/app/bot.py"]
