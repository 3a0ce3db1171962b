"""The Upwords referee: which plays are legal, what they score, turns, challenges and the end.

The rules are games/upwords.md's (the rulebook behind the seed's garbled translation).  The
camera shows only each square's top letter and height, so the match keeps the history of every
stack (``Stacks``): it is what scores a stacked word and what says a tile was added.  A match's
whole position is one immutable ``_Table``; judging is a pure function of table and board, so
replaying the same inputs from the same settings rebuilds the same match.

``evaluate`` and ``apply`` know nothing of turns or players, so the rack helper (generator.py)
uses them to try candidate plays.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from companion.errors import InputError
from companion.games.base import JSON, TableMatch, Verdict
from companion.games.settings import is_int, player_settings
from companion.games.upwords.dictionary import Dictionary, load_dictionary
from companion.games.upwords.model import (
    CENTRE,
    LETTERS,
    MAX_HEIGHT,
    SIZE,
    TILE_COUNTS,
    Board,
    Stacks,
    cell_name,
)

log = logging.getLogger(__name__)

RACK = 7
"""Tiles on a rack: the most one turn can play, and the +20 bonus for playing them all."""
ALL_TILES_BONUS = 20
END_PENALTY = 5
"""Points lost per tile left on a rack at the end."""

_ACROSS = (0, 1)
_DOWN = (1, 0)


class IllegalPlay(ValueError):
    """A play the rules forbid; ``str(err)`` is the reason in words a player understands."""


@dataclass(frozen=True)
class Placement:
    """One tile put down this turn, on an empty square or on top of a stack."""

    row: int
    col: int
    letter: str


@dataclass(frozen=True)
class Word:
    """A word the play formed, read left to right or top to bottom, and what it scores."""

    text: str
    cells: tuple[tuple[int, int], ...]
    score: int


@dataclass(frozen=True)
class Play:
    """A legal play: its words (the one along the tiles first) and its score, ``bonus`` included."""

    placements: tuple[Placement, ...]
    words: tuple[Word, ...]
    score: int
    bonus: int


def empty_stacks() -> Stacks:
    """The history of an empty board."""
    return ((),) * (SIZE * SIZE)


def apply(stacks: Stacks, placements: Iterable[Placement]) -> Stacks:
    """The history after ``placements`` (not checked: ``evaluate`` first)."""
    out = list(stacks)
    for p in placements:
        out[p.row * SIZE + p.col] = (*out[p.row * SIZE + p.col], p.letter)
    return tuple(out)


def tile_counts(stacks: Stacks) -> Counter[str]:
    """How many tiles of each letter are on the board, covered ones included."""
    return Counter(letter for stack in stacks for letter in stack)


def evaluate(
    stacks: Stacks, placements: Sequence[Placement], dictionary: Dictionary, *, first: bool
) -> Play:
    """Check a play against every turn rule and score it; ``IllegalPlay`` says what is wrong.

    ``first`` is the opening play (the board is empty), which must cover a centre square instead
    of connecting to tiles already down.
    """
    placed = tuple(placements)
    _check_tiles(stacks, placed)
    cells = [(p.row, p.col) for p in placed]
    direction = _direction(cells)
    after = apply(stacks, placed)
    if direction is not None:
        _check_gaps(after, cells, direction)
    if first:
        if not CENTRE.intersection(cells):
            raise IllegalPlay("the first word must cover a centre square")
    elif not _connected(stacks, cells):
        raise IllegalPlay("the word must connect to the tiles already on the board")
    words = _words(after, cells, direction)
    if not words:
        raise IllegalPlay("a play must make a word of two letters or more")
    if direction is not None:
        _check_cover(stacks, cells, direction)
    _check_plural(stacks, placed, words)
    wrong = [w.text for w in words if w.text not in dictionary]
    if len(wrong) == 1:
        raise IllegalPlay(f"{wrong[0]} is not a word")
    if wrong:
        raise IllegalPlay(f"{', '.join(wrong[:-1])} and {wrong[-1]} are not words")
    bonus = ALL_TILES_BONUS if len(placed) == RACK else 0
    return Play(placed, words, sum(w.score for w in words) + bonus, bonus)


def _check_tiles(stacks: Stacks, placed: tuple[Placement, ...]) -> None:
    """The rules about the tiles themselves: count, squares, letters, stacking, the set."""
    if not placed:
        raise IllegalPlay("no tile was played")
    if len(placed) > RACK:
        raise IllegalPlay(f"a rack holds {RACK} tiles, but {len(placed)} were played")
    for p in placed:
        if not (0 <= p.row < SIZE and 0 <= p.col < SIZE):
            raise IllegalPlay(f"r{p.row}c{p.col} is not a square of the board")
        if p.letter not in LETTERS:
            raise IllegalPlay(f"{p.letter!r} is not an upwords tile")
    cells = [(p.row, p.col) for p in placed]
    if len(set(cells)) != len(cells):
        raise IllegalPlay("only one tile per stack per turn")
    if len({r for r, _ in cells}) > 1 and len({c for _, c in cells}) > 1:
        raise IllegalPlay("the tiles must be in one row or one column")
    for p in placed:
        stack = stacks[p.row * SIZE + p.col]
        if stack and stack[-1] == p.letter:
            tile = _a(p.letter)
            raise IllegalPlay(f"{tile} on {tile} at {cell_name(p.row, p.col)}")
        if len(stack) >= MAX_HEIGHT:
            raise IllegalPlay(f"stacks are at most {MAX_HEIGHT} tiles high")
    counts = tile_counts(stacks)
    counts.update(p.letter for p in placed)
    for letter in dict.fromkeys(p.letter for p in placed):
        limit = TILE_COUNTS[letter]
        if counts[letter] > limit:
            many = f"is only 1 {letter}" if limit == 1 else f"are only {limit} {letter}s"
            raise IllegalPlay(f"there {many} in the set")


def _a(letter: str) -> str:
    """'an A', 'an F', 'a B': the article goes by how the letter's name sounds."""
    return f"an {letter}" if letter[0] in "AEFHILMNORSX" else f"a {letter}"


def _direction(cells: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The line the tiles lie on; None for a single tile (it may make a word either way)."""
    if len(cells) == 1:
        return None
    return _ACROSS if len({r for r, _ in cells}) == 1 else _DOWN


def _check_gaps(after: Stacks, cells: list[tuple[int, int]], direction: tuple[int, int]) -> None:
    first, last = min(cells), max(cells)
    dr, dc = direction
    row, col = first
    while (row, col) != last:
        if not after[row * SIZE + col]:
            raise IllegalPlay(f"there is a gap at {cell_name(row, col)}")
        row, col = row + dr, col + dc


def _connected(stacks: Stacks, cells: list[tuple[int, int]]) -> bool:
    """Some tile goes on a stack or next to one (tiles between played ones touch them too)."""
    for row, col in cells:
        for r, c in ((row, col), (row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
            if 0 <= r < SIZE and 0 <= c < SIZE and stacks[r * SIZE + c]:
                return True
    return False


def _run(
    stacks: Stacks, cell: tuple[int, int], direction: tuple[int, int]
) -> list[tuple[int, int]]:
    """The maximal line of occupied squares through ``cell``, in reading order."""
    dr, dc = direction
    row, col = cell
    while row >= dr and col >= dc and stacks[(row - dr) * SIZE + col - dc]:
        row, col = row - dr, col - dc
    run = []
    while row < SIZE and col < SIZE and stacks[row * SIZE + col]:
        run.append((row, col))
        row, col = row + dr, col + dc
    return run


def _words(
    after: Stacks, cells: list[tuple[int, int]], direction: tuple[int, int] | None
) -> tuple[Word, ...]:
    """Every word through a played tile: the one along the tiles first, then those across them."""
    if direction is None:
        runs = [_run(after, cells[0], _ACROSS), _run(after, cells[0], _DOWN)]
    else:
        across = _DOWN if direction == _ACROSS else _ACROSS
        runs = [_run(after, cells[0], direction)] + [_run(after, cell, across) for cell in cells]
    return tuple(_word(after, run) for run in runs if len(run) >= 2)


def _word(after: Stacks, run: list[tuple[int, int]]) -> Word:
    """Flat words score 2 a tile (+2 with the Qu); stacked ones 1 a tile in each stack."""
    stacks = [after[r * SIZE + c] for r, c in run]
    text = "".join(stack[-1] for stack in stacks)
    if all(len(stack) == 1 for stack in stacks):
        score = 2 * len(stacks) + (2 if any(stack[-1] == "QU" for stack in stacks) else 0)
    else:
        score = sum(len(stack) for stack in stacks)
    return Word(text, tuple(run), score)


def _check_cover(stacks: Stacks, cells: list[tuple[int, int]], direction: tuple[int, int]) -> None:
    """A word along the play may be changed, but one of its letters must stay uncovered."""
    played = set(cells)
    for cell in cells:
        if stacks[cell[0] * SIZE + cell[1]]:
            old = _run(stacks, cell, direction)
            if len(old) >= 2 and played.issuperset(old):
                text = "".join(stacks[r * SIZE + c][-1] for r, c in old)
                raise IllegalPlay(
                    f"you cannot cover a whole word: {text} would be covered entirely"
                )


def _check_plural(stacks: Stacks, placed: tuple[Placement, ...], words: tuple[Word, ...]) -> None:
    """One S added at the end of a word, making no other word, only pluralises it."""
    if len(placed) != 1 or len(words) != 1:
        return
    tile, word = placed[0], words[0]
    cell = (tile.row, tile.col)
    added = tile.letter == "S" and not stacks[tile.row * SIZE + tile.col]
    if added and word.cells[-1] == cell and len(word.cells) >= 3:
        raise IllegalPlay(f"adding only an S to make a plural ({word.text}) is not allowed")


# --- the match ------------------------------------------------------------------------------


def match_settings(options: JSON) -> JSON:
    """Validate page/CLI options and fill in every default, so the stored settings replay exactly.

    Keys: ``players`` 2-4 (default: the number of ``names``, else 2), ``names``, ``seed`` (chosen
    here when missing), ``wordlist`` (a word list replacing ENABLE) and ``extra`` (words the
    players agreed to add), both file paths or None, and ``first`` (index of the first player).
    Other keys are passed through untouched for the core.
    """
    common = player_settings(options, "upwords")
    out = dict(options)
    for key in ("wordlist", "extra"):
        path = options.get(key)
        if path is not None and (not isinstance(path, str) or not path):
            raise InputError(f"'{key}' must be the path of a word list file, not {path!r}")
    out.update(
        **common,
        wordlist=options.get("wordlist"),
        extra=options.get("extra"),
    )
    _dictionary(out)  # a bad word list is reported when the game is set up, not mid-game
    return out


def _dictionary(settings: JSON) -> Dictionary:
    wordlist, extra = settings["wordlist"], settings["extra"]
    return load_dictionary(
        wordlist=None if wordlist is None else Path(wordlist),
        extra=None if extra is None else Path(extra),
    )


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


class UpwordsMatch(TableMatch):
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
        from companion.games.upwords.generator import rack_helper

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
        from companion.games.upwords.inference import infer_placements  # it imports this module

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
