"""The Upwords referee: turns, scores, challenges and the end of a match.

The rules are games/upwords.md's (the rulebook behind the seed's garbled translation).  Whether
one play is legal and what it scores is play.py's; a match adds who plays, the bag and the end.
The camera shows only each square's top letter and height, so the match keeps the history of
every stack (``Stacks``): it is what scores a stacked word and what says a tile was added.  A
match's whole position is one immutable ``_Table``; judging is a pure function of table and
board, so replaying the same inputs from the same settings rebuilds the same match.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from companion.errors import InputError
from companion.games.base import JSON, TableMatch, Verdict
from companion.games.settings import is_int, player_settings
from companion.games.upwords.dictionary import Dictionary, dictionary_of, read_words, words_kept
from companion.games.upwords.generator import rack_helper
from companion.games.upwords.inference import infer_placements
from companion.games.upwords.model import MAX_HEIGHT, SIZE, TILE_COUNTS, Board, Stacks, cell_name
from companion.games.upwords.play import RACK, IllegalPlay, Play, apply, empty_stacks, evaluate

log = logging.getLogger(__name__)

END_PENALTY = 5
"""Points lost per tile left on a rack at the end."""


def match_settings(options: JSON) -> JSON:
    """Validate page/CLI options and fill in every default, so the stored settings replay exactly.

    Keys: ``players`` 2-4 (default: the number of ``names``, else 2), ``names``, ``seed`` (chosen
    here when missing), ``wordlist`` (a word list replacing ENABLE) and ``extra`` (words the
    players agreed to add), each None or the words themselves (a file's path is read here, once,
    and the settings keep its words: see ``_words_setting``), and ``first`` (index of the first
    player).  Other keys are passed through untouched for the core.
    """
    common = player_settings(options, "upwords")
    out = dict(options)
    out.update(
        **common,
        wordlist=_words_setting("wordlist", options.get("wordlist")),
        extra=_words_setting("extra", options.get("extra")),
    )
    return out


def _words_setting(key: str, value: object) -> list[str] | None:
    """A word list setting as the settings keep it: None, or its playable words, sorted, each
    once.  A path (the command line's ``--setting wordlist=FILE``, or settings stored by older
    versions) is read now, so that no rebuild of the match ever reads a file."""
    if value is None:
        return None
    if isinstance(value, str) and value:
        return read_words(Path(value))
    if isinstance(value, list) and all(isinstance(word, str) for word in value):
        return list(_normalised(tuple(value)))
    raise InputError(f"'{key}' must be the path of a word list file or a list of words")


@lru_cache(maxsize=8)
def _normalised(words: tuple[str, ...]) -> tuple[str, ...]:
    """``words`` as the settings keep them, once per content (every rebuild checks again)."""
    return tuple(words_kept(words))


def _dictionary(settings: JSON) -> Dictionary:
    return dictionary_of(settings["wordlist"], settings["extra"])


@dataclass(frozen=True)
class _Last:
    """The latest accepted play and the table before it: what a challenge restores."""

    before: _Table
    player: int
    play: Play


@dataclass(frozen=True)
class _Table:
    """Everything that changes during a match."""

    stacks: Stacks
    started: bool
    to_move: int
    scores: tuple[int, ...]
    passes: int
    last: _Last | None
    winner: int | None
    over: bool
    racks_counted: bool


class UpwordsMatch(TableMatch[Board, _Table]):
    """One game of Upwords.

    The game ends when every player passes in a row, or when the players say so with an
    ``end`` event listing the tiles left on each rack (-5 points a tile; after an end by passes
    the racks can still be entered once).  The highest total wins; equal highest totals are a
    draw (``winner`` None, ``finished`` True).  A challenge takes back the latest accepted play
    (and any passes or exchanges since, the turn returns to its player) until the next play.
    """

    def __init__(self, settings: JSON) -> None:
        self.settings = match_settings(settings)
        self.names: list[str] = self.settings["names"]
        self.players: int = self.settings["players"]
        self.dictionary = _dictionary(self.settings)
        self._table = _Table(
            stacks=empty_stacks(),
            started=False,
            to_move=self.settings["first"],
            scores=(0,) * self.players,
            passes=0,
            last=None,
            winner=None,
            over=False,
            racks_counted=False,
        )

    # --- Match interface ------------------------------------------------------------------
    @property
    def state(self) -> Board:
        return Board.from_stacks(self._table.stacks)

    def handle(self, event: JSON) -> Verdict | None:
        """``pass``, ``exchange`` (one tile, the turn is lost), ``challenge`` or ``end``."""
        kind = event.get("event") if isinstance(event, dict) else None
        table = self._table
        if kind == "end":
            racks = self._racks(event)
            if table.racks_counted:
                return self._illegal(table, "the game is over: " + self._result_text(table))
            verdict, self._table = self._end(table, racks)
            return verdict
        if kind not in ("pass", "exchange", "challenge"):
            raise InputError(f"upwords has no event {kind!r}: use pass, exchange, challenge or end")
        if not table.started:
            return self._illegal(table, "the game has not started: show the empty board first")
        if table.over:
            return self._illegal(table, "the game is over: " + self._result_text(table))
        if kind == "challenge":
            verdict, self._table = self._challenge(table)
        elif kind == "exchange":
            verdict, self._table = self._exchange(table)
        else:
            verdict, self._table = self._pass(table)
        return verdict

    def public_view(self) -> JSON:
        table = self._table
        return {
            "players": [
                {"name": name, "score": score}
                for name, score in zip(self.names, table.scores, strict=True)
            ],
            "to_move": table.to_move,
            "tiles_left": self._tiles_left(table),
            "passes": table.passes,
            "winner": table.winner,
            "summary": [f"{self._tiles_left(table)} tiles in the bag"],
            "actions": [
                {"event": "pass", "label": "Pass"},
                {"event": "exchange", "label": "Exchange a tile"},
                {"event": "challenge", "label": "Challenge the last word"},
                {"event": "end", "label": "End game", "fields": "racks"},
            ],
        }

    def reconcile(self, observed: Board) -> Board:
        """Heights from history where the camera cannot do better (``_heights_from_history``)."""
        return self._heights_from_history(observed)[0]

    def notes_on(self, observed: Board) -> list[str]:
        """Where the camera's heights disagree with history, for the page (three at most)."""
        return self._heights_from_history(observed)[1][:3]

    def _heights_from_history(self, observed: Board) -> tuple[Board, list[str]]:
        """The observed board with history's heights, and the squares where they disagree.

        A square whose top letter is the one history knows keeps its known height; a square
        with a new letter is one tile higher than before.  The camera's height is kept only
        where it tells of a tile taken off (the letter below showing, one tile lower), which
        history cannot know.
        """
        stacks = self._table.stacks
        squares = list(observed.squares)
        notes: list[str] = []
        for i, (height, letter) in enumerate(observed.squares):
            stack = stacks[i]
            if not letter or (not stack and height == 1):
                continue
            if stack and letter == stack[-1]:
                known = len(stack)
            elif len(stack) >= 2 and letter == stack[-2] and height == len(stack) - 1:
                continue  # the top tile was taken off: leave it for the rules to refuse
            elif len(stack) < MAX_HEIGHT:
                known = len(stack) + 1
            else:
                continue
            if height != known:
                notes.append(
                    f"camera reads {cell_name(*divmod(i, SIZE))} as {height} high, "
                    f"history says {known}"
                )
            squares[i] = (known, letter)
        return Board(tuple(squares)), notes

    def private_view(self, player: int) -> JSON:
        return {
            "title": "Rack helper",
            "items": [],
            "query": {"label": "Your tiles", "placeholder": "e.g. AEIRSTQU"},
        }

    def private_query(self, player: int, text: str) -> JSON:
        """The rack helper: the best plays for the tiles the player typed, on this board."""
        stacks = self.stacks
        return rack_helper(stacks, text, self.dictionary, first=not any(stacks))

    # --- helpers for the rack helper, sample games and tests -----------------------------
    @property
    def stacks(self) -> Stacks:
        """Every square's letters, bottom first."""
        return self._table.stacks

    @property
    def scores(self) -> tuple[int, ...]:
        return self._table.scores

    @property
    def to_move(self) -> int:
        return self._table.to_move

    @property
    def winner(self) -> int | None:
        return self._table.winner

    @property
    def last_play(self) -> Play | None:
        """The play a challenge would take back, if any."""
        return self._table.last.play if self._table.last else None

    @property
    def tiles_left(self) -> int:
        return self._tiles_left(self._table)

    # --- the rules ------------------------------------------------------------------------
    def _tiles_left(self, table: _Table) -> int:
        """Tiles in the bag: the set less the board and full racks (they refill while it lasts)."""
        on_board = sum(len(stack) for stack in table.stacks)
        return max(0, sum(TILE_COUNTS.values()) - on_board - RACK * self.players)

    def _step(self, table: _Table, board: Board) -> tuple[Verdict, _Table]:
        if not table.started:
            return self._start(table, board)
        if table.over:
            return self._illegal(table, "the game is over: " + self._result_text(table)), table
        mover = table.to_move
        warnings: list[str] = []
        try:
            placements, warnings = infer_placements(
                Board.from_stacks(table.stacks), board, table.stacks
            )
            first = not any(table.stacks)
            play = evaluate(table.stacks, placements, self.dictionary, first=first)
        except IllegalPlay as err:
            verdict = self._illegal(table, str(err))
            verdict.extra["height_warnings"] = warnings
            return verdict, table
        scores = list(table.scores)
        scores[mover] += play.score
        nxt = (mover + 1) % self.players
        new = replace(
            table,
            stacks=apply(table.stacks, play.placements),
            to_move=nxt,
            scores=tuple(scores),
            passes=0,
            last=_Last(replace(table, last=None), mover, play),  # one play back, no chain
        )
        verdict = Verdict(
            legal=True,
            reason="play",
            player=mover,
            move=_move(play),
            score=play.score,
            text=f"{self.names[mover]} plays {_play_text(play)}.",
            extra={
                "words": [w.text for w in play.words],
                "bonus": play.bonus,
                "scores": scores,
                "next": nxt,
                "height_warnings": warnings,
                "winner": None,
            },
        )
        log.debug("%s plays %s", self.names[mover], _play_text(play))
        return verdict, new

    def _start(self, table: _Table, board: Board) -> tuple[Verdict, _Table]:
        occupied = [cell_name(*rc) for rc in Board.empty().changed(board)]
        if occupied:
            listed = ", ".join(occupied[:5]) + (" ..." if len(occupied) > 5 else "")
            reason = f"the board must be empty at the start: take the tiles off {listed}"
            return self._illegal(table, reason), table
        name = self.names[table.to_move]
        verdict = Verdict(
            legal=True,
            reason="start position",
            player=None,
            move=None,
            text=f"The board is empty; {name} plays first.",
            extra=self._extra(table),
        )
        return verdict, replace(table, started=True)

    def _pass(self, table: _Table) -> tuple[Verdict, _Table]:
        mover = table.to_move
        passes = table.passes + 1
        new = replace(table, to_move=(mover + 1) % self.players, passes=passes)
        text = f"{self.names[mover]} passes"
        if passes >= self.players:
            new = self._finish(new)
            text += f": every player passed in a row, so the game is over; {self._result_text(new)}"
        verdict = Verdict(
            legal=True,
            reason="pass",
            player=mover,
            move={"pass": True},
            score=0,
            text=text + ".",
            extra=self._extra(new),
        )
        return verdict, new

    def _exchange(self, table: _Table) -> tuple[Verdict, _Table]:
        mover = table.to_move
        if self._tiles_left(table) == 0:
            return self._illegal(table, "the bag is empty: there is no tile to exchange"), table
        new = replace(table, to_move=(mover + 1) % self.players, passes=0)
        verdict = Verdict(
            legal=True,
            reason="exchange",
            player=mover,
            move={"exchange": 1},
            score=0,
            text=f"{self.names[mover]} exchanges a tile.",
            extra=self._extra(new),
        )
        return verdict, new

    def _challenge(self, table: _Table) -> tuple[Verdict, _Table]:
        if table.last is None:
            return self._illegal(table, "there is no play to take back"), table
        last = table.last
        new = replace(last.before, last=None)
        words = [w.text for w in last.play.words]
        verdict = Verdict(
            legal=True,
            reason="challenge",
            player=last.player,
            move={"taken_back": _move(last.play)},
            score=None,
            text=(
                f"{self.names[last.player]}'s {' and '.join(words)} "
                f"{'is' if len(words) == 1 else 'are'} taken back, {last.play.score} points off; "
                f"{self.names[last.player]} plays again."
            ),
            extra={"words": words, **self._extra(new)},
        )
        return verdict, new

    def _racks(self, event: JSON) -> list[int]:
        racks = event.get("racks")
        if (
            not isinstance(racks, list)
            or len(racks) != self.players
            or not all(is_int(n) and 0 <= n <= RACK for n in racks)
        ):
            raise InputError(
                f"'racks' must list {self.players} numbers of tiles left, 0 to {RACK}, one a player"
            )
        return racks

    def _end(self, table: _Table, racks: list[int]) -> tuple[Verdict, _Table]:
        scores = tuple(s - END_PENALTY * n for s, n in zip(table.scores, racks, strict=True))
        new = self._finish(replace(table, scores=scores, racks_counted=True))
        losses = ", ".join(
            f"{name} -{END_PENALTY * n}" for name, n in zip(self.names, racks, strict=True) if n
        )
        text = f"Game over{f' ({losses} for tiles left)' if losses else ''}: "
        verdict = Verdict(
            legal=True,
            reason="end",
            player=None,
            move={"end": {"racks": racks}},
            text=text + self._result_text(new) + ".",
            extra={"racks": racks, **self._extra(new)},
        )
        return verdict, new

    def _finish(self, table: _Table) -> _Table:
        best = max(table.scores)
        leaders = [p for p, s in enumerate(table.scores) if s == best]
        return replace(
            table, over=True, last=None, winner=leaders[0] if len(leaders) == 1 else None
        )

    def _extra(self, table: _Table) -> JSON:
        return {
            "scores": list(table.scores),
            "next": None if table.over else table.to_move,
            "winner": table.winner,
        }

    def _illegal(self, table: _Table, reason: str) -> Verdict:
        mover = table.to_move if table.started and not table.over else None
        text = f"{self.names[mover]}: {reason}." if mover is not None else f"{reason}."
        return Verdict(
            legal=False, reason=reason, player=mover, move=None, text=text[0].upper() + text[1:]
        )

    def _result_text(self, table: _Table) -> str:
        if table.winner is None:
            return "the game is drawn"
        return f"{self.names[table.winner]} wins with {table.scores[table.winner]} points"


def _move(play: Play) -> JSON:
    return {
        "placements": [
            {"cell": cell_name(p.row, p.col), "letter": p.letter} for p in play.placements
        ],
        "words": [{"word": w.text, "score": w.score} for w in play.words],
    }


def _play_text(play: Play) -> str:
    """'MOOD for 8', 'NET and ON for 10', 'PLAYERS for 34 (20 for all seven tiles)'."""
    words = [w.text for w in play.words]
    named = words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
    bonus = f" ({play.bonus} for all {RACK} tiles)" if play.bonus else ""
    return f"{named} for {play.score}{bonus}"
