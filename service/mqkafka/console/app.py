"""The console's web application: Starlette routes, Jinja2 templates and static files read
as package data, server-sent events for the live rates.

Pages are plain handlers (Starlette runs them in its thread pool, so the query layer's
blocking Kafka clients never hold up the event loop). Actions are POST forms that exist only
with ``allow_actions`` and carry the console's token, so another site's page cannot post one.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from jinja2 import Environment, PackageLoader, select_autoescape
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from mqkafka.console import pages
from mqkafka.console.live import RateFeed
from mqkafka.console.pages import ConsoleSettings
from mqkafka.kafka.clients import KafkaEdgeError, KafkaException
from mqkafka.query.actions import (
    administer_queue,
    cause_repeats,
    delete_subscription,
    reput_dead_letter,
)
from mqkafka.query.service import sample

NAV = (
    ("/", "Topics"),
    ("/subscriptions", "Subscriptions"),
    ("/retained", "Retained"),
    ("/queues", "Queues"),
    ("/rates", "Rates"),
    ("/dead-letters", "Dead letters"),
    ("/workers", "Workers"),
    ("/connections", "Connections"),
)


def when(ms: int | float | None) -> str:
    """Epoch milliseconds as UTC to the second ("" when unknown)."""
    if not ms:
        return ""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ms / 1000))


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("mqkafka.console", "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["when"] = when
    env.filters["blank"] = lambda value: "" if value is None else value
    env.tests["own_cause"] = cause_repeats  # a dead letter a re-put would send back
    return env


def create_app(settings: ConsoleSettings) -> Starlette:
    env = _environment()

    def render(
        request: Request, template: str, context: dict[str, Any], status: int = 200
    ) -> Response:
        page = env.get_template(template).render(
            request=request, nav=NAV, path=request.url.path, settings=settings,
            notice=request.query_params.get("notice", ""),
            failed=request.query_params.get("failed", ""), **context,
        )  # fmt: skip
        return HTMLResponse(page, status)

    def page(template: str, build: Callable[[Request], dict[str, Any]]) -> Callable[..., Response]:
        def handler(request: Request) -> Response:
            try:
                context = build(request)
            except (KafkaEdgeError, KafkaException) as error:
                return render(request, "error.html", {"problem": str(error)}, 503)
            return render(request, template, context)

        return handler

    def rates_page(request: Request) -> dict[str, Any]:
        return {"metrics_url": settings.metrics_url}

    async def events(request: Request) -> Response:
        feed = RateFeed(lambda: sample(settings.metrics_url))
        stopping = anyio.Event()  # set by sse-starlette when the server shuts down

        async def stream() -> AsyncIterator[dict[str, str]]:
            while not stopping.is_set():
                event = await asyncio.to_thread(feed.next_event)
                yield {"event": "rates", "data": json.dumps(event)}
                with anyio.move_on_after(settings.interval):
                    await stopping.wait()

        # the stream ends by itself at shutdown (a cancelled one leaves uvicorn complaining
        # that the response was never completed)
        return EventSourceResponse(
            stream(), ping=15, shutdown_event=stopping, shutdown_grace_period=1.5
        )

    async def _form(request: Request) -> dict[str, str] | None:
        form = await request.form()
        values = {k: str(v) for k, v in form.items()}
        ok = settings.allow_actions and values.get("token") == settings.token
        return values if ok else None

    async def reput(request: Request) -> Response:
        values = await _form(request)
        if values is None:
            return Response("actions are off (start the console with --allow-actions)", 403)
        outcome = await asyncio.to_thread(
            reput_dead_letter, settings.config, values.get("msg_id", ""),
            namespace=settings.namespace, qmgr=settings.qmgr,
            confirmed=values.get("confirm") == "yes",
        )  # fmt: skip
        if outcome.ok:
            settings.moved.add(values.get("msg_id", "").lower())
        return _back("/dead-letters", outcome.ok, outcome.text)

    async def delete_sub(request: Request) -> Response:
        values = await _form(request)
        if values is None:
            return Response("actions are off (start the console with --allow-actions)", 403)
        view = await asyncio.to_thread(pages.find_subscription, settings, values)
        if view is None:
            return _back("/subscriptions", False, "no such subscription (deleted already?)")
        outcome = await asyncio.to_thread(
            delete_subscription, settings.config, view, namespace=settings.namespace
        )
        return _back("/subscriptions", outcome.ok, outcome.text)

    async def queue_action(request: Request) -> Response:
        values = await _form(request)
        if values is None:
            return Response("actions are off (start the console with --allow-actions)", 403)
        depth = values.get("max_depth", "").strip()
        if depth and not depth.isdigit():
            return _back("/queues", False, f"MAXDEPTH must be a count, not {depth!r}")
        outcome = await asyncio.to_thread(
            administer_queue, settings.config, values.get("action", ""),
            values.get("queue", "").strip(), namespace=settings.namespace, qmgr=settings.qmgr,
            purge=values.get("purge") == "yes", description=values.get("description", ""),
            max_depth=int(depth) if depth else None,
        )  # fmt: skip
        return _back("/queues", outcome.ok, outcome.text)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        settings.close()

    def q(request: Request, name: str, default: str = "") -> str:
        return request.query_params.get(name, default)

    routes = [
        Route("/", page("tree.html", lambda r: pages.tree_page(settings))),
        Route("/subscriptions", page("subscriptions.html",
              lambda r: pages.subscriptions_page(settings, q(r, "q")))),
        Route("/retained", page("retained.html",
              lambda r: pages.retained_page(settings, q(r, "filter"), q(r, "as", "auto")))),
        Route("/queues", page("queues.html", lambda r: pages.queues_page(settings))),
        Route("/dead-letters", page("deadletters.html",
              lambda r: pages.dead_letters_page(settings))),
        Route("/workers", page("workers.html", lambda r: pages.workers_page(settings))),
        Route("/connections", page("connections.html",
              lambda r: pages.connections_page(settings))),
        Route("/rates", page("rates.html", rates_page)),
        Route("/events/rates", events),
        Route("/actions/reput", reput, methods=["POST"]),
        Route("/actions/delete-subscription", delete_sub, methods=["POST"]),
        Route("/actions/queue", queue_action, methods=["POST"]),
        Mount("/static", StaticFiles(packages=[("mqkafka.console", "static")]), name="static"),
    ]  # fmt: skip
    return Starlette(routes=routes, lifespan=lifespan)


def _back(where: str, ok: bool, text: str) -> Response:
    from urllib.parse import urlencode

    return RedirectResponse(f"{where}?{urlencode({'notice' if ok else 'failed': text})}", 303)


__all__ = ["NAV", "create_app", "when"]
