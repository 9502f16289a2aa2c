"""The one presenter: what the application decided, in the player's language, for every face (the board's
answers, the typed commands, the Activity's page). Each face delivers these words its own way (a private
answer, a redrawn board, a line on the page); none of them words an outcome again.

Also how both faces read a board action as the move it makes (``tap_action``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, assert_never

from pyramide import STOCK, Card, Game
from pyramide import effects as ev
from pyramide.i18n import card_name, describe, t
from pyramide_service import admission, finished, inputs, outcomes

from . import controls
from .words import code_problem, ending_lines

# Why a press played nothing, when nothing is drawn again: said privately (the page: beside the position).
REFUSALS: dict[type, str] = {
    outcomes.NoGameHere: "error.no_game",
    outcomes.Broken: "error.broken_game",
    outcomes.Stale: "error.stale_board",
    outcomes.Busy: "error.solver_busy",
}
Unanswered = outcomes.NoGameHere | outcomes.Broken | outcomes.Stale | outcomes.Busy
Name = Callable[[int], str]  # how a face names a player by id (a mention on the board, a name on the page)


Face = Literal["board", "page"]  # where a press was made: a board (a button, a typed command), the Activity's page
# A move that changed nothing on the board (a covered card named, nothing to undo...): a typed command's is
# answered to its player alone, the channel kept quiet.
QUIET_EFFECTS = (
    ev.Blocked,
    ev.NotInPlay,
    ev.UnknownCard,
    ev.NothingToDo,
    ev.NothingToUndo,
    ev.NoPassesLeft,
    ev.GameOver,
)
NotPlayed = outcomes.Unplayed | outcomes.MayNotEnd | outcomes.Busy | outcomes.MovedOn


def refusal(outcome: Unanswered, lang: str) -> str:
    return t(lang, REFUSALS[type(outcome)])


def unplayed(outcome: NotPlayed, lang: str, name: Name, *, face: Face, threads: bool = True) -> list[str]:
    """Why a press played nothing, in words, on either face; ``name``: how the face names a player. A board
    is drawn again with these lines where the game is known (drawn anew, shown finished, closed at load);
    the page is sent the position as it is now whatever the outcome, and says only that it was behind.
    Someone else's game: on the board "not your game" (``threads``: where one may deal one's own in a
    thread), on the page "you are watching" (it shows the game to all, played by its starter)."""
    match outcome:
        case outcomes.NoGameHere() | outcomes.Broken() | outcomes.Stale() | outcomes.Busy():
            return [refusal(outcome, lang)]
        case outcomes.NotYours(live):
            if face == "page":
                return [t(lang, "activity.watching")]
            key = "error.not_your_game" if threads else "error.not_your_game_here"
            return [t(lang, key, owner=name(live.record.owner_id))]
        case outcomes.MayNotEnd(live):
            return [not_allowed(name(live.record.owner_id), lang)]
        case outcomes.MovedOn():
            return [t(lang, "hint.moved_on")]
        case outcomes.Redrawn() | outcomes.ShownFinished() | outcomes.ClosedAtLoad() if face == "page":
            return [t(lang, "error.stale_board")]
        case outcomes.Redrawn():
            return [t(lang, "board.refreshed")]
        case outcomes.ShownFinished(ending=ending) | outcomes.ClosedAtLoad(ending=ending):
            return ending_lines(ending, lang)
        case _:
            assert_never(outcome)


def quiet(effect: ev.Effect) -> bool:
    """Whether a move changed nothing on the board (``QUIET_EFFECTS``)."""
    return isinstance(effect, QUIET_EFFECTS)


def quiet_words(outcome: outcomes.Played, lang: str) -> str:
    """A move that changed nothing, said to its player alone: a covered card in short, unless the server
    asks for the rules' full error help."""
    if isinstance(outcome.effect, ev.Blocked) and not outcome.settings.error_help:
        return t(lang, "effect.blocked_quiet")
    return describe(outcome.effect, lang, True)


def played_lines(
    outcome: outcomes.Played,
    lang: str,
    *,
    explained: bool = False,
    ending: bool = True,
    name: Callable[[Card, str], str] = card_name,
) -> list[str]:
    """A played move's status lines on every face: what it did, its cards written by ``name`` (a mistake
    explained when the server asks for error help, or ``explained``: said to its player alone), then with
    ``ending`` a game it finished's ending (a board drawn from the stored game adds that itself)."""
    said = describe(outcome.effect, lang, outcome.settings.error_help or explained, name)
    lines = [said] if said else []
    if ending and outcome.ending is not None:
        lines.extend(ending_lines(outcome.ending, lang))
    return lines


def not_allowed(owner: str, lang: str) -> str:
    """Neither the game's starter (``owner``, as the face names players) nor a moderator."""
    return t(lang, "error.end_not_allowed", owner=owner)


def question(asked: admission.AskFirst, lang: str, name: Name) -> list[str]:
    """The question before a deal replaces the running game: end it and deal, or keep it (and who may)."""
    words = [t(lang, "error.game_exists")]
    if asked.abandons:
        words.append(t(lang, "error.idle_game", minutes=asked.idle_minutes))
    elif not asked.allowed:
        words.append(not_allowed(name(asked.running.record.owner_id), lang))
        words.append(t(lang, "error.idle_later", minutes=asked.idle_minutes))
    return words


def deal_refusal(refused: admission.Refused, lang: str, name: Name) -> list[str]:
    """Why a deal was not dealt; ``name``: how the face names a player (a mention, the page's names)."""
    match refused:
        case admission.AskFirst():
            return question(refused, lang, name)
        case admission.PromptUsed():
            return [t(lang, "error.prompt_used")]
        case admission.MayNotReplace(running):
            return [not_allowed(name(running.record.owner_id), lang)]
        case admission.PeeksAtDaily():
            return [t(lang, "error.daily_peek")]
        case admission.PeeksAtEvent():  # a running event's deal waits until it is over
            return [t(lang, "event.peek")]
        case outcomes.Busy():
            return [refusal(refused, lang)]
        case _:
            assert_never(refused)


def playback_refusal(refused: finished.PlaybackRefusal, lang: str) -> str:
    """Why a finished game's winning line or replay is not shown (``Admission.may_play_back``)."""
    match refused:
        case finished.NotOfHere():
            return t(lang, "error.stale_board")
        case finished.NotFinished():
            return t(lang, "anim.not_finished")
        case finished.EventHidden():
            return t(lang, "event.code_hidden")
        case finished.DailyWaits():
            return t(lang, "anim.daily_wait")
        case _:
            assert_never(refused)


def free_deal_refusal(refused: inputs.BadCode | inputs.DifficultyExcludes, lang: str) -> str:
    """Why a free deal's options ask for nothing that can be dealt (``inputs.free_deal``)."""
    match refused:
        case inputs.BadCode(code, error):
            return t(lang, "error.invalid_code", code=code, problem=code_problem(error, lang))
        case inputs.DifficultyExcludes(code=True):
            return t(lang, "error.difficulty_code")
        case inputs.DifficultyExcludes():
            return t(lang, "error.difficulty_rules")
        case _:
            assert_never(refused)


def give_up_words(outcome: outcomes.GiveUpOutcome, lang: str) -> str:
    """A race's "Give up", answered to the racer who pressed it."""
    match outcome:
        case outcomes.GaveUp():
            return t(lang, "race.you_gave_up")
        case outcomes.Stale():
            return refusal(outcome, lang)
        case outcomes.NotARacer():
            return t(lang, "race.not_yours")
        case outcomes.RaceOver():
            return t(lang, "race.already_over")
        case _:
            assert_never(outcome)


def tap_action(action: str) -> Callable[[Game], ev.Effect]:
    """A board action (a spot, the waste, the card under it, the stock, undo) as the move it makes."""
    if action == controls.UNDO:
        return lambda game: game.undo()
    spot = controls.spot_of(action)
    return lambda game: game.tap(spot)


def hint_words(
    suggestion: Any, game: Game, lang: str, name: Callable[[Card, str], str] = card_name
) -> tuple[list[str], tuple, bool]:
    """The hint's line (its cards written by ``name``), the spots to highlight, and whether no card can be
    removed any more."""
    move = suggestion.move
    highlight: tuple = ()
    if suggestion.lost and suggestion.removable is not None and suggestion.removable <= game.removed:
        # Formally the game goes on while cards can be drawn (the rule texts), but the solver proved that
        # nothing more can ever be removed: say so, and offer a new deal.
        return [t(lang, "hint.dead", count=game.removed)], (), True
    if move is None:
        status = t(lang, "hint.none")
    elif move.kind == "draw":
        status, highlight = t(lang, "hint.draw"), (STOCK,)
    elif move.kind == "turn":
        status, highlight = t(lang, "hint.turn"), (STOCK,)
    else:
        names = [name(c, lang) for c in (game.card_at(s) for s in move.spots) if c is not None]
        status, highlight = t(lang, "hint.cards", cards=" + ".join(names)), tuple(move.spots)
    lines = [status, t(lang, "hint.losing")] if suggestion.lost and move is not None else [status]
    return lines, highlight, False
