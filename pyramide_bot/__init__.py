"""The Discord application around the game that is not a cog: its settings (read and checked once at
start). ``bot.py`` is the entry point that reads ``.env`` and runs it."""
