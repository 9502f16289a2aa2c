"""Stopping a ``discord.ext.tasks`` loop for good (the application's ``Supervised`` keeps the other
background tasks: ``pyramide_service.tasks``)."""

from __future__ import annotations

import asyncio
from typing import Any

from discord.ext import tasks


async def stop_loop(loop: tasks.Loop[Any]) -> None:
    """Cancel a ``discord.ext.tasks`` loop and wait until its task has ended, so that a storage call it was
    making has given its connection back before the owner closes the storage (else the close waits for it)."""
    task = loop.get_task()
    loop.cancel()
    if task is not None:
        await asyncio.gather(task, return_exceptions=True)
