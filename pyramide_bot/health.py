"""How the bot is doing, for the people who host it: Prometheus metrics and a readiness check.

With ``METRICS_PORT`` set, ``GET /metrics`` serves the metrics (``prometheus-client``) and
``GET /healthz`` answers 200 only when the gateway is connected and storage answers, 503 otherwise.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass

from aiohttp import web
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

log = logging.getLogger(__name__)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


@dataclass(frozen=True)
class Figures:
    """What health reads, handed in by its owner (the bot), so that health knows nothing of the bot."""

    connected: Callable[[], bool]  # the gateway is up and the bot not closing
    ping: Callable[[], Awaitable[object]]  # storage answers
    latencies: Callable[[], Iterable[tuple[int, float]]]  # each shard and its heartbeat latency
    live_games: Callable[[], int]
    solver_waiting: Callable[[], int]
    in_flight: Callable[[], int]


class _GatewayLatency(Collector):
    def __init__(self, latencies: Callable[[], Iterable[tuple[int, float]]]) -> None:
        self.latencies = latencies

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "pyramide_gateway_latency_seconds", "Heartbeat latency of each gateway shard", labels=["shard"]
        )
        for shard, latency in self.latencies():
            if latency == latency and latency != float("inf"):  # NaN or inf before the first heartbeat
                family.add_metric([str(shard)], latency)
        yield family


class Health:
    """The bot's metrics (one registry per bot) and the HTTP endpoint that serves them."""

    def __init__(self, figures: Figures) -> None:
        self.figures = figures
        self.registry = CollectorRegistry()
        self.interactions = Counter(
            "pyramide_interactions", "Interactions answered (presses and commands)", ["kind"], registry=self.registry
        )
        self.seconds = Histogram(
            "pyramide_interaction_seconds",
            "From an interaction's arrival to its flow's end",
            ["kind"],
            buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
            registry=self.registry,
        )
        self.database_errors = Counter(
            "pyramide_database_errors", "Requests that failed on the database", registry=self.registry
        )
        Gauge("pyramide_live_games", "Games held in memory", registry=self.registry).set_function(figures.live_games)
        Gauge("pyramide_solver_waiting", "Hints queued or being worked out", registry=self.registry).set_function(
            figures.solver_waiting
        )
        Gauge("pyramide_in_flight", "Interactions being answered", registry=self.registry).set_function(
            figures.in_flight
        )
        self.registry.register(_GatewayLatency(figures.latencies))
        self._runner: web.AppRunner | None = None
        self._storage_failing = False
        self.port: int | None = None

    def observe(self, kind: str, seconds: float) -> None:
        self.interactions.labels(kind).inc()
        self.seconds.labels(kind).observe(seconds)

    async def ready(self) -> tuple[bool, str]:
        if not self.figures.connected():
            return False, "gateway not connected"
        try:
            await asyncio.wait_for(self.figures.ping(), 2.0)
        except Exception as error:  # any failure means not ready; the reason is the answer, and a log line
            if not self._storage_failing:  # one line when it starts failing, not one per probe
                log.warning("readiness: storage did not answer (%s)", type(error).__name__)
            self._storage_failing = True
            return False, f"storage: {type(error).__name__}"
        if self._storage_failing:
            log.info("readiness: storage answers again")
        self._storage_failing = False
        return True, "ok"

    async def _metrics(self, request: web.Request) -> web.Response:
        return web.Response(body=generate_latest(self.registry), headers={"Content-Type": CONTENT_TYPE})

    async def _healthz(self, request: web.Request) -> web.Response:
        ok, reason = await self.ready()
        return web.Response(text=reason + "\n", status=200 if ok else 503)

    async def serve(self, port: int, host: str = "127.0.0.1") -> int:
        """Start the endpoint (``port`` 0: any free port); returns the port."""
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        # The runner's public addresses: (host, port) for IPv4, (host, port, flow, scope) for IPv6.
        addresses = self._runner.addresses
        self.port = int(addresses[0][1]) if addresses else port
        log.info("metrics on http://%s:%d/metrics, readiness on /healthz", host, self.port)
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
