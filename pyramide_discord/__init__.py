"""What both faces of the game share in Discord (the board's cogs and the Activity): the bot as they see it
(``host``), Discord's failures sorted (``failures``), the buttons' protocol (``controls``), the card emojis,
the game message drawn (``board``), the words of a game (``words``), the one presenter of the application's
outcomes (``presenter``) and the deals a face asks the solver for (``finders``). Below the cogs, over the
application: a face imports it, never another face."""
