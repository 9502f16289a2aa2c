"""The Discord application around the game that is not a cog: the bot class and what it owns (app.py),
the settings read and checked once at start (settings.py), health and metrics (health.py), logging
(logs.py), the command translator (translator.py), and the process's start-up and shut-down
(process.py). ``bot.py`` is the entry point that reads ``.env`` and runs it."""
