"""The game as a service, apart from Discord: storage (SQLite through aiosqlite, PostgreSQL through
asyncpg), the channels' manager, the solver service and its workers, crediting and statistics, the
dailies, races, server events and server settings. It stands over the library (``pyramide``) and under
the Discord layer (``cogs``, ``pyramide_bot``); its calls take ids and values, never a Discord object."""
