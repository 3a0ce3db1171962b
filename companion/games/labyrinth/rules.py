"""The Zombie Labyrinth referee: spins, where a character or Dr. Bizarre may go, discs, the end.

The rules are the seed's, made precise in games/labyrinth.md; every place where the seed is
silent is a match setting (``match_settings``).  Where a move may end is the stop-set search
(``destinations``).  Two readings the seed leaves open are fixed here:

- "Directly past" Dr. Bizarre: players choose their route, so a move passes him only when every
  route to its destination goes through his space (his space on the way is unavoidable).
- A Dr. Bizarre spin ends on a character's space; the players then put him back home, so the
  next board shows him home.  A board that already shows him home is accepted when only one
  space with characters was within his reach; otherwise the players must show where he went.

A match's whole position is one immutable ``_Table``; judging is a pure function from table and
input to verdict and table, so replaying the same inputs from the same settings (and seed)
always rebuilds the same match.  The companion's spins and the hidden disc values come from
the seed: spin ``k`` from ``Random("<seed>:spin:<k>")``, a disc's value from
``Random("<seed>:disc:<space>")``, so they do not depend on the order things happen in.

A spin comes from the page (entered, or drawn by the companion) or from the camera: a board
whose spinner card shows another segment than the board before, while the match waits for a
spin, is that spin (``_seen_spin``).  The camera sees where the arrow points, not that it
turned, so a spin that lands on the segment of the last one looks like no spin at all: that
spin is entered on the page.  While a move is awaited the spinner changes nothing; the match
keeps the segment it last took, so an arrow spun early counts once the move is made.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace

from companion.errors import InputError
from companion.games.base import JSON, TableMatch, Verdict
from companion.games.labyrinth.catalog import PURPLE, Catalog, catalog_of, read_catalog
from companion.games.labyrinth.model import (
    BIZARRE,
    CHARACTER_COLOURS,
    GAME_ID,
    Board,
    Graph,
    default_layout,
    graph_of,
    make_board,
    parse_board,
    reachable,
    set_up_board,
)
from companion.games.settings import is_int, player_settings

log = logging.getLogger(__name__)

NO_DESTINATION = ("stay", "spin again")
LOSE_CHOICE = ("lowest", "ask")
BIZARRE_TARGETS = ("others", "all")


def destinations(
    graph: Graph | Mapping[str, Iterable[str]],
    start: str,
    stop_set: Iterable[str],
    walls: Iterable[str] = (),
) -> frozenset[str]:
    """Where a piece on ``start`` may stop: members of the stop set it reaches without passing
    another member, and never entering ``walls`` (not even to stop there).

    The stop set is taken out of the graph; the legal destinations are its members adjacent to
    what remains reachable from ``start`` (``start`` itself is never a stop).  Walking back and
    forth inside that region reaches nothing a simple path does not, so the set is the same
    whether or not a move may double back.
    """
    adj = graph.adj if isinstance(graph, Graph) else graph
    stops = set(stop_set) - {start}
    blocked = set(walls) - {start}
    seen = {start}
    todo = [start]
    found: set[str] = set()
    while todo:
        for nxt in adj[todo.pop()]:
            if nxt in blocked:
                continue
            if nxt in stops:
                found.add(nxt)
            elif nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return frozenset(found)


def match_settings(options: JSON) -> JSON:
    """Validate page/CLI options and fill in every default, so the stored settings replay exactly.

    Keys besides ``players``/``names``/``seed``/``first``: ``characters`` (stand colour per
    player, default red, yellow, green, blue in turn), ``pieces`` (None for the built-in set; a
    piece file's path is read here and the settings keep what it holds, see
    ``_pieces_setting``), ``layout`` (the expected layout, as in the state's JSON form; the
    built-in one by default, required with a piece file), ``compulsory`` (a move is compulsory
    when a destination exists: true), ``no_destination`` ("stay" or "spin again"), ``block``
    (other characters block: false), ``purple_spins`` (purple is a colour characters can spin:
    true), ``disc_values`` (the values a hidden disc may have: [1, 2, 3]), ``finish_value``
    (5), ``hoard_value`` (4), ``lose`` ("lowest": the referee sets aside the lowest disc;
    "ask": the player says which) and ``bizarre_targets`` ("others": Dr. Bizarre goes for the
    other players' characters, as the seed says; "all": the spinner's own too).
    """
    common = player_settings(options, "labyrinth")
    colours = _characters_setting(options, common["players"])
    pieces, layout = _board_settings(options)
    flags = _flag_settings(options)
    choices = _choice_settings(options)
    values = _disc_values_setting(options)
    worth = _worth_settings(options)
    out = dict(options)
    out.update(
        **common,
        characters=colours,
        pieces=pieces,
        layout=layout,
        disc_values=values,
        **flags,
        **choices,
        **worth,
    )
    return out


def _characters_setting(options: JSON, players: int) -> list[str]:
    """Each player's stand colour: the colour names the character the camera looks for."""
    colours = options.get("characters", list(CHARACTER_COLOURS[:players]))
    if (
        not isinstance(colours, list)
        or len(colours) != players
        or len(set(colours)) != players
        or not all(c in CHARACTER_COLOURS for c in colours)
    ):
        raise InputError(
            f"'characters' must give each of the {players} players a different stand colour "
            f"({', '.join(CHARACTER_COLOURS)})"
        )
    return colours


def _board_settings(options: JSON) -> tuple[JSON | None, JSON | None]:
    """``pieces`` and ``layout``, checked together: a user's pieces only make sense with the
    layout they lie in, and a bad file or layout is reported when the game is set up, not
    mid-game."""
    pieces = options.get("pieces")
    layout = options.get("layout")
    if pieces is not None:
        if not (isinstance(pieces, str) and pieces) and not isinstance(pieces, dict):
            raise InputError(f"'pieces' must be the path of a piece file, not {pieces!r}")
        if layout is None:
            raise InputError("with your own 'pieces' file, give the 'layout' the pieces lie in")
        pieces = _pieces_setting(pieces)
    catalog = catalog_of(pieces)
    if layout is not None:
        reachable(parse_board({"game": GAME_ID, "layout": layout}, catalog).layout, catalog)
    return pieces, layout


def _pieces_setting(pieces: str | JSON) -> JSON:
    """A user's pieces as the settings hold them: the JSON of the piece file, not its path, so
    the match never reads a file and its record replays anywhere.  A path (given on the
    command line, or kept in settings stored before pieces were held this way) is read now,
    when the game is set up; content already held is checked again (by ``_board_settings``)."""
    return read_catalog(pieces) if isinstance(pieces, str) else pieces


def _flag_settings(options: JSON) -> dict[str, bool]:
    """The house rules that are on or off (other characters block: off by default)."""
    flags = {}
    for key in ("compulsory", "block", "purple_spins"):
        value = options.get(key, key != "block")
        if not isinstance(value, bool):
            raise InputError(f"'{key}' must be true or false, not {value!r}")
        flags[key] = value
    return flags


def _choice_settings(options: JSON) -> dict[str, str]:
    """The house rules with named choices, each defaulting to the seed's reading."""
    choices = {}
    for key, allowed in (
        ("no_destination", NO_DESTINATION),
        ("lose", LOSE_CHOICE),
        ("bizarre_targets", BIZARRE_TARGETS),
    ):
        value = options.get(key, allowed[0])
        if value not in allowed:
            raise InputError(f"'{key}' must be one of {', '.join(allowed)}, not {value!r}")
        choices[key] = value
    return choices


def _disc_values_setting(options: JSON) -> list[int]:
    """The values a hidden disc may have: the seed deals every disc one of them."""
    values = options.get("disc_values", [1, 2, 3])
    if not isinstance(values, list) or not values or not all(is_int(v) and v > 0 for v in values):
        raise InputError(f"'disc_values' must list the brains a disc can show, not {values!r}")
    return values


def _worth_settings(options: JSON) -> dict[str, int]:
    """What the finish disc and Dr. Bizarre's hoard disc are worth (they are no hidden disc)."""
    worth = {}
    for key, default in (("finish_value", 5), ("hoard_value", 4)):
        value = options.get(key, default)
        if not is_int(value) or value < 0:
            raise InputError(f"'{key}' must be a whole number of brains, not {value!r}")
        worth[key] = value
    return worth


@dataclass(frozen=True)
class _Table:
    """Everything that changes during a match."""

    board: Board
    started: bool
    to_move: int
    spin: str | None
    spins_drawn: int
    kept: tuple[tuple[str, ...], ...]
    """Per player, the disc spaces whose discs he holds, in the order collected."""
    lost: tuple[tuple[str, ...], ...]
    owed: tuple[int, ...]
    """Players who must still say which disc they set aside ("lose": "ask")."""
    returning: str | None
    """Where Dr. Bizarre was sent home from, while the table may still show him there."""
    over: bool
    entered: tuple[tuple[int, ...] | None, ...]


class LabyrinthMatch(TableMatch[Board, _Table]):
    """One game of Zombie Labyrinth for 2-4 players."""

    def __init__(self, settings: JSON) -> None:
        self.settings = match_settings(settings)
        self.names: list[str] = self.settings["names"]
        self.players: int = self.settings["players"]
        self.colours: list[str] = self.settings["characters"]
        self.seed: int = self.settings["seed"]
        self.catalog: Catalog = catalog_of(self.settings["pieces"])
        segments = [c for c in self.catalog.colours if c != PURPLE or self.settings["purple_spins"]]
        self.segments: tuple[str, ...] = (*segments, BIZARRE)
        empty: tuple[tuple[str, ...], ...] = ((),) * self.players
        layout = self.settings["layout"]
        if layout is None:
            start = set_up_board(default_layout(), self.colours)
        else:
            start = set_up_board(
                parse_board({"game": GAME_ID, "layout": layout}, self.catalog).layout,
                self.colours,
                self.catalog,
            )
        self._table = _Table(
            board=start,
            started=False,
            to_move=self.settings["first"],
            spin=None,
            spins_drawn=0,
            kept=empty,
            lost=empty,
            owed=(),
            returning=None,
            over=False,
            entered=(None,) * self.players,
        )

    # --- Match interface ------------------------------------------------------------------
    @property
    def state(self) -> Board:
        return self._table.board

    def reconcile(self, observed: Board) -> Board:
        """Discs never come back, a disc under a character who has not moved is still there,
        Dr. Bizarre unseen is where he was, and Dr. Bizarre still standing where he was sent
        home from is home (the players have not yet put him back).  The spinner keeps its
        known segment when its card is out of view and whenever no spin is awaited, so that
        only a spin waited for makes a board differ (see the module's note)."""
        table = self._table
        known = table.board
        if not table.started or observed.layout != known.layout:
            return observed
        kept_under = {
            space
            for colour, space in known.characters
            if observed.where(colour) == space and space in known.discs
        }
        discs = (observed.discs & known.discs) | kept_under
        bizarre = observed.bizarre
        if bizarre is None or (table.returning is not None and bizarre == table.returning):
            bizarre = known.bizarre
        spinner = observed.spinner
        if spinner is None or table.over or table.spin is not None:
            spinner = known.spinner
        return make_board(observed.layout, observed.character_map, bizarre, discs, spinner)

    def handle(self, event: JSON) -> Verdict | None:
        """``spin`` (``result`` entered, or drawn by the companion), ``move`` (``to``: where the
        spun character or Dr. Bizarre went, entered by hand; needed when Dr. Bizarre catches
        someone and is back home before the camera saw him), ``stay`` (when moving is not
        compulsory), ``lose`` (``player`` sets his ``disc`` k aside, 0 = first collected) and
        ``discs`` (a player's real disc ``values``, in collection order, once the game is
        over)."""
        kind = event.get("event") if isinstance(event, dict) else None
        table = self._table
        if kind == "discs":
            verdict, self._table = self._enter_values(table, event)
            return verdict
        if kind == "lose":
            verdict, self._table = self._choose_loss(table, event)
            return verdict
        if kind == "move":
            to = event.get("to")
            if not isinstance(to, str) or to not in self.graph.spaces:
                raise InputError(f"'to' must be a space of this labyrinth, not {to!r}")
            if not table.started or table.over or table.spin is None:
                return self._illegal(table, "a move is entered after a spin, during the game")
            return self.judge(self.board_after(to))
        if kind not in ("spin", "stay"):
            raise InputError(
                f"labyrinth has no event {kind!r}: use spin, move, stay, lose or discs"
            )
        if not table.started:
            return self._illegal(table, "the game has not started: show the set-up board first")
        if table.over:
            return self._illegal(table, "the game is over: " + self._result_text(table))
        if kind == "spin":
            verdict, self._table = self._spin(table, event.get("result"))
        else:
            verdict, self._table = self._stay(table)
        return verdict

    def public_view(self) -> JSON:
        table = self._table
        return {
            "players": self._player_rows(table),
            "to_move": None if table.over or not table.started else table.to_move,
            "spin": table.spin,
            "summary": self._summary(table),
            "actions": self._actions(table),
            "owed": list(table.owed),
            "winners": self._winners(table) if table.over else [],
        }

    def board_marks(self) -> JSON:
        """After a spin, where the spun character or Dr. Bizarre may stop (dashed rings)."""
        return {"destinations": sorted(self.legal_destinations())} if self._table.spin else {}

    def private_view(self, player: int) -> JSON:
        items = []
        for k, space in enumerate(self._table.kept[player]):
            value = self.disc_value(space)
            items.append(
                {
                    "label": f"Disc {k + 1}: {value} brain{'' if value == 1 else 's'}",
                    "svg": _disc_svg(value),
                    "disc": k,
                    "value": value,
                }
            )
        return {"title": "Your brain discs (keep them hidden)", "items": items}

    # --- helpers for sample games and tests ----------------------------------------------
    @property
    def to_move(self) -> int:
        return self._table.to_move

    @property
    def spin(self) -> str | None:
        return self._table.spin

    @property
    def graph(self) -> Graph:
        return graph_of(self._table.board.layout, self.catalog)

    def kept(self, player: int) -> tuple[str, ...]:
        """The disc spaces whose discs ``player`` holds, in the order collected."""
        return self._table.kept[player]

    def brains(self) -> list[int]:
        """Each player's brains (entered values where given, else the companion's)."""
        return self._brains(self._table)

    def winners(self) -> list[int]:
        """The players with the most brains once the game is over (ties share the win)."""
        return self._winners(self._table) if self._table.over else []

    def disc_value(self, space: str) -> int:
        """The hidden value of the disc that lay on ``space`` (fixed by the seed)."""
        graph = self.graph
        if space == graph.finish:
            return self.settings["finish_value"]
        if space == graph.home:
            return self.settings["hoard_value"]
        return random.Random(f"{self.seed}:disc:{space}").choice(self.settings["disc_values"])

    def legal_destinations(self) -> frozenset[str]:
        """Where the piece the current spin moves may stop (empty before a spin)."""
        table = self._table
        if table.spin is None:
            return frozenset()
        return self._destinations(table, table.spin)

    def board_after(self, space: str) -> Board:
        """The board the table shows once the piece the current spin moves (the player to
        move's character before a spin) stands on ``space``, a collected disc taken off; for
        scripted games and moves entered by hand."""
        board = self._table.board
        if self._table.spin == BIZARRE:
            return make_board(board.layout, board.character_map, space, board.discs, board.spinner)
        chars = board.character_map | {self.colours[self._table.to_move]: space}
        return make_board(board.layout, chars, board.bizarre, board.discs - {space}, board.spinner)

    # --- the page's view -------------------------------------------------------------------
    def _player_rows(self, table: _Table) -> list[JSON]:
        """Each player's row: discs held while the game runs (their values are hidden), the
        brains they are worth once it is over."""
        brains = self._brains(table) if table.over else None
        players = []
        for i, name in enumerate(self.names):
            count = len(table.kept[i])
            detail = f"{self.colours[i]} · {count} disc{'' if count == 1 else 's'}"
            if brains is not None:
                detail += f", {brains[i]} brain{'' if brains[i] == 1 else 's'}"
            players.append(
                {
                    "name": name,
                    "score": brains[i] if brains is not None else count,
                    "discs": count,
                    "set_aside": len(table.lost[i]),
                    "colour": self.colours[i],
                    "detail": detail,
                }
            )
        return players

    def _summary(self, table: _Table) -> list[str]:
        """The lines the page shows above the board: what the table waits for."""
        summary = [f"{len(table.board.discs)} discs on the labyrinth"]
        if table.spin is not None:
            summary += self._spin_summary(table, table.spin)
        summary += [f"{self.names[p]} must set a disc aside" for p in sorted(set(table.owed))]
        if table.over:
            summary.append("game over: " + self._result_text(table))
        return summary

    def _spin_summary(self, table: _Table, spin: str) -> list[str]:
        """What was spun and where the spun piece may go, so players need not search the
        labyrinth for the lanterns of that colour."""
        lines = [f"{self.names[table.to_move]} spun {self._segment_name(spin)}"]
        who = "Dr. Bizarre" if spin == BIZARRE else self.names[table.to_move]
        spots = sorted(self.legal_destinations())
        places = list(dict.fromkeys(self.graph.describe(s) for s in spots))
        if places:
            lines.append(f"{who} can go to {_listed(places)}")
        return lines

    def _actions(self, table: _Table) -> list[JSON]:
        """The page's buttons: a spin drawn by the companion when one is awaited, staying put
        when moving is not compulsory."""
        actions: list[JSON] = []
        if table.started and not table.over and table.spin is None:
            actions.append({"event": "spin", "label": "Spin for me"})
        if table.spin is not None and not self.settings["compulsory"]:
            actions.append({"event": "stay", "label": "Stay put"})
        return actions

    # --- the rules ------------------------------------------------------------------------
    def _graph(self, board: Board) -> Graph:
        return graph_of(board.layout, self.catalog)

    def _segment_name(self, segment: str) -> str:
        return "Dr. Bizarre" if segment == BIZARRE else segment

    def _destinations(self, table: _Table, spin: str) -> frozenset[str]:
        board = table.board
        graph = self._graph(board)
        mover = self.colours[table.to_move]
        places = board.character_map
        if spin == BIZARRE:
            assert board.bizarre is not None
            targets = {
                space
                for colour, space in places.items()
                if colour in self.colours
                and (self.settings["bizarre_targets"] == "all" or colour != mover)
            }
            return destinations(graph, board.bizarre, targets | graph.lanterns(PURPLE))
        stops = graph.lanterns(spin) | board.discs
        return destinations(graph, places[mover], stops, self._walls(board, mover))

    def _step(self, table: _Table, board: Board) -> tuple[Verdict, _Table]:
        if not table.started:
            return self._set_up(table, board)
        known = table.board.spinner
        if (
            not table.over
            and table.spin is None
            and board.spinner is not None
            and board.spinner != known
        ):
            return self._seen_spin(table, board)
        if board.spinner != known and replace(board, spinner=known) == table.board:
            what = self._segment_name(board.spinner) if board.spinner else "nothing"
            verdict = Verdict(
                legal=True,
                reason="spinner",
                player=None,
                move=None,
                text=f"The spinner shows {what}, which changes nothing now.",
            )
            return verdict, table
        if table.over:
            return self._illegal(table, "the game is over: " + self._result_text(table)), table
        if board.layout != table.board.layout:
            reason = "the labyrinth pieces moved: put them back as they were"
            return self._illegal(table, reason), table
        if table.spin is None:
            reason = f"{self.names[table.to_move]} must spin first, then move"
            return self._illegal(table, reason), table
        if table.spin == BIZARRE:
            return self._bizarre_move(table, board)
        return self._character_move(table, board)

    def _set_up(self, table: _Table, board: Board) -> tuple[Verdict, _Table]:
        try:
            graph = reachable(board.layout, self.catalog)
        except InputError as err:
            return self._illegal(table, str(err)), table
        problems = []
        places = board.character_map
        for colour in self.colours:
            if places.get(colour) != graph.start:
                problems.append(f"the {colour} character must stand on the starting space")
        for colour in places:
            if colour not in self.colours:
                problems.append(f"nobody plays the {colour} character: take it off")
        if board.bizarre != graph.home:
            problems.append("Dr. Bizarre must stand on his home space")
        for space, what in ((graph.finish, "the finish disc"), (graph.home, "his hoard disc")):
            if space not in board.discs:
                problems.append(f"{what} must lie on {graph.describe(space)}")
        if problems:
            return self._illegal(
                table, "the labyrinth is not set up: " + "; ".join(problems)
            ), table
        name = self.names[table.to_move]
        count = len(board.discs)
        verdict = Verdict(
            legal=True,
            reason="set up",
            player=None,
            move=None,
            text=f"The labyrinth is set up with {count} discs; {name} spins first.",
            extra={"next": table.to_move},
        )
        return verdict, replace(table, board=board, started=True)

    def _spin(self, table: _Table, result: object) -> tuple[Verdict, _Table]:
        spinner = table.to_move
        name = self.names[spinner]
        if table.spin is not None:
            reason = f"{name} has already spun {self._segment_name(table.spin)}: move first"
            return self._illegal(table, reason), table
        drawn = result is None
        if drawn:
            rng = random.Random(f"{self.seed}:spin:{table.spins_drawn}")
            result = rng.choice(self.segments)
            table = replace(table, spins_drawn=table.spins_drawn + 1)
        if result not in self.segments:
            raise InputError(f"the spinner shows {', '.join(self.segments)}, not {result!r}")
        assert isinstance(result, str)
        table = replace(table, spin=result)
        what = self._segment_name(result)
        text = f"The companion spins {what} for {name}" if drawn else f"{name} spins {what}"
        options = self._destinations(table, result)
        extra: JSON = {"spin": result, "drawn": drawn, "destinations": sorted(options)}
        if options:
            if result == BIZARRE:
                text += ": move Dr. Bizarre to a character or a purple lantern."
            else:
                text += f": go to a {result} lantern or a disc."
            verdict = Verdict(
                legal=True,
                reason="spin",
                player=spinner,
                move={"spin": result},
                text=text,
                extra=extra,
            )
            return verdict, table
        who = "Dr. Bizarre" if result == BIZARRE else name
        if self.settings["no_destination"] == "spin again":
            table = replace(table, spin=None)
            text += f": {who} can reach nothing, so {name} spins again."
        else:
            nxt = (table.to_move + 1) % self.players
            table = replace(table, spin=None, to_move=nxt)
            text += f": {who} can reach nothing and stays; {self.names[nxt]} to spin."
        extra["next"] = table.to_move
        verdict = Verdict(
            legal=True,
            reason="no move",
            player=spinner,
            move={"spin": result},
            text=text,
            extra=extra,
        )
        return verdict, table

    def _seen_spin(self, table: _Table, board: Board) -> tuple[Verdict, _Table]:
        """The spin a board's spinner shows (the match waits for one), judged as if entered on
        the page; then whatever else changed on the board is judged as the move that follows
        (a spin and a move the camera saw settle as one board)."""
        segment = board.spinner
        assert segment is not None
        if segment not in self.segments:
            reason = (
                f"the spinner shows {segment}, which this match does not play "
                "(purple is left out): spin again"
            )
            return self._illegal(table, reason), table
        verdict, table = self._spin(table, segment)
        table = replace(table, board=replace(table.board, spinner=segment))
        if board == table.board:
            return verdict, table
        move, after = self._step(table, board)
        if not move.legal:
            move = replace(move, text=f"{verdict.text} {move.text}")
        return move, after

    def _stay(self, table: _Table) -> tuple[Verdict, _Table]:
        name = self.names[table.to_move]
        if table.spin is None:
            return self._illegal(table, f"{name} has not spun yet: spin first"), table
        if self.settings["compulsory"]:
            reason = "moving is compulsory when a destination can be reached"
            return self._illegal(table, reason), table
        nxt = (table.to_move + 1) % self.players
        verdict = Verdict(
            legal=True,
            reason="stay",
            player=table.to_move,
            move=None,
            text=f"{name} stays put; {self.names[nxt]} to spin.",
            extra={"next": nxt},
        )
        return verdict, replace(table, spin=None, to_move=nxt)

    def _character_move(self, table: _Table, board: Board) -> tuple[Verdict, _Table]:
        """A board after a colour spin: the spun character moved, nothing else but the disc
        it took, and Dr. Bizarre left where he was unless the move met him (then he may
        already be back home)."""
        old = table.board
        graph = self._graph(old)
        colour = self.colours[table.to_move]
        spin = table.spin
        assert spin is not None
        start, end = old.where(colour), board.where(colour)
        assert start is not None
        problem = self._character_problem(table, board, start, end)
        if problem:
            return self._illegal(table, problem), table
        assert end is not None
        met = self._meets_bizarre(old, colour, start, end, spin)
        allowed = (old.bizarre, graph.home) if met else (old.bizarre,)
        if board.bizarre not in allowed:
            reason = "Dr. Bizarre moves only on his own spin: put him back"
            return self._illegal(table, reason), table
        return self._character_moved(table, board, start, end, met)

    def _character_problem(self, table: _Table, board: Board, start: str, end: str | None) -> str:
        """Why ``board`` is not the spun character's move from ``start`` (empty when it may
        be): another character moved, it is off the board or did not move, discs changed
        beyond the one it may take, or the spin does not let it stop on ``end``."""
        old = table.board
        graph = self._graph(old)
        colour = self.colours[table.to_move]
        problem = self._others_moved(old, board, graph, keep=colour)
        if problem:
            return problem
        if end is None:
            return f"the {colour} character is not on a space"
        if end == start:
            return self._stray_discs(old, board, graph, None) or (
                "Dr. Bizarre moves only on his own spin: put him back"
                if board.bizarre != old.bizarre
                else f"the {colour} character has not moved"
            )
        stray = self._stray_discs(old, board, graph, end)
        if stray:
            return stray
        spin = table.spin
        assert spin is not None
        if end not in self._destinations(table, spin):
            return (
                f"{graph.describe(end)} is not a {spin} lantern or a disc reachable without "
                "passing one"
            )
        return ""

    def _meets_bizarre(self, board: Board, colour: str, start: str, end: str, spin: str) -> bool:
        """A move from ``start`` to ``end`` lands on Dr. Bizarre or passes him: every route
        goes through his space, so with his space walled off ``end`` is no longer a stop the
        spin reaches (the module's note).  Leaving his space is not meeting him."""
        bizarre = board.bizarre
        assert bizarre is not None
        if bizarre == start:
            return False
        if end == bizarre:
            return True
        graph = self._graph(board)
        stops = graph.lanterns(spin) | board.discs
        return end not in destinations(graph, start, stops, self._walls(board, colour) | {bizarre})

    def _character_moved(
        self, table: _Table, board: Board, start: str, end: str, met: bool
    ) -> tuple[Verdict, _Table]:
        """A legal move played out, in the order the rules take it: a disc lost for meeting
        Dr. Bizarre (from those held before this move), the disc on ``end`` collected, Dr.
        Bizarre sent home and whoever stands there losing a disc, then the next player or,
        with the finish disc, the end."""
        old = table.board
        graph = self._graph(old)
        mover = table.to_move
        spin = table.spin
        bizarre_at = old.bizarre
        losses: list[JSON] = []
        notes: list[str] = []
        if met:
            how = "lands on" if end == bizarre_at else "passes"
            table, note = self._lose(table, mover, f"{how} Dr. Bizarre", losses)
            notes.append(note)
        collected = end in old.discs and not (end == graph.home and bizarre_at == graph.home)
        if collected:
            table = self._keep(table, mover, end)
        if met and bizarre_at != graph.home:
            table = self._home_losses(table, board.character_map, (), losses, notes)
        discs = old.discs - {end} if collected else old.discs
        bizarre = graph.home if met else bizarre_at
        new_board = make_board(old.layout, board.character_map, bizarre, discs, old.spinner)
        nxt = (mover + 1) % self.players
        returning = bizarre_at if met else None
        table = replace(table, board=new_board, spin=None, to_move=nxt, returning=returning)
        if collected and end == graph.finish:
            table = self._finish(table)
        move: JSON = {"character": self.colours[mover], "from": start, "to": end, "spin": spin}
        log.debug("%s moves %s -> %s", self.names[mover], start, end)
        return self._move_verdict(table, mover, move, collected, notes, losses), table

    def _move_verdict(
        self,
        table: _Table,
        mover: int,
        move: JSON,
        collected: bool,
        notes: list[str],
        losses: list[JSON],
    ) -> Verdict:
        """The verdict on a legal character ``move``, ``table`` being the table after it."""
        graph = self._graph(table.board)
        end = move["to"]
        text = f"{self.names[mover]} spins {move['spin']} and goes to {graph.describe(end)}"
        if collected:
            text += f" and collects {_disc_name(end, graph)}"
        text += "".join(f"; {n}" for n in notes)
        nxt = table.to_move
        text += f"; {self._result_text(table)}." if table.over else f"; {self.names[nxt]} to spin."
        return Verdict(
            legal=True,
            reason="move",
            player=mover,
            move=move,
            score=1 if collected else 0,
            text=text,
            extra={
                "collected": end if collected else None,
                "losses": losses,
                "next": None if table.over else nxt,
                "discs": [len(k) for k in table.kept],
                "winners": self._winners(table) if table.over else [],
            },
        )

    def _bizarre_move(self, table: _Table, board: Board) -> tuple[Verdict, _Table]:
        """A board after a Dr. Bizarre spin: only he moved, to a purple lantern or onto a
        character (or already back home when that can only mean one catch)."""
        old = table.board
        graph = self._graph(old)
        problem = self._others_moved(old, board, graph, keep=None) or self._stray_discs(
            old, board, graph, None
        )
        if problem:
            return self._illegal(table, problem), table
        end = board.bizarre
        if end is None:
            return self._illegal(table, "Dr. Bizarre is not on a space"), table
        caught_at, problem = self._bizarre_target(table, end)
        if problem:
            return self._illegal(table, problem), table
        return self._bizarre_moved(table, board, end, caught_at)

    def _bizarre_target(self, table: _Table, end: str) -> tuple[str | None, str]:
        """(the space where Dr. Bizarre, shown on ``end``, catches characters, or None; why
        ``end`` is not his move, or empty).  Shown home where he cannot stop, he went for the
        characters he reaches and was put back: accepted when only one space of them is in
        reach, else the players must show which."""
        graph = self._graph(table.board)
        options = self._destinations(table, BIZARRE)
        if end in options and self._victims(table, end):
            return end, ""
        if end == graph.home and end not in options:
            reached = sorted(s for s in options if self._victims(table, s))
            if len(reached) == 1:
                return reached[0], ""
            if reached:
                spots = " or ".join(graph.describe(s) for s in reached)
                return None, (
                    f"Dr. Bizarre can reach characters on {spots}: show him on the one he goes "
                    "to, then take him home"
                )
        if end not in options:
            return None, (
                f"{graph.describe(end)} is not a character or a purple lantern Dr. Bizarre "
                "reaches without passing one"
            )
        return None, ""

    def _bizarre_moved(
        self, table: _Table, board: Board, end: str, caught_at: str | None
    ) -> tuple[Verdict, _Table]:
        """Dr. Bizarre's legal move played out: sent to ``end``, or catching the characters on
        ``caught_at`` (each loses a disc, as does anyone else standing on his home) and going
        home; then the next player spins."""
        old = table.board
        graph = self._graph(old)
        spinner = table.to_move
        name = self.names[spinner]
        start = old.bizarre
        losses: list[JSON] = []
        notes: list[str] = []
        if caught_at is None:
            new_bizarre, returning = end, None
            text = f"{name} spins Dr. Bizarre and sends him to {graph.describe(end)}"
        else:
            victims = self._victims(table, caught_at)
            who = " and ".join(self.names[v] for v in victims)
            text = f"{name} spins Dr. Bizarre and he catches {who} on {graph.describe(caught_at)}"
            for v in victims:
                table, note = self._lose(table, v, "is caught", losses)
                notes.append(note)
            table = self._home_losses(table, board.character_map, victims, losses, notes)
            new_bizarre, returning = graph.home, caught_at
        new_board = make_board(old.layout, old.character_map, new_bizarre, old.discs, old.spinner)
        nxt = (spinner + 1) % self.players
        table = replace(table, board=new_board, spin=None, to_move=nxt, returning=returning)
        text += "".join(f"; {n}" for n in notes) + f"; {self.names[nxt]} to spin."
        verdict = Verdict(
            legal=True,
            reason="bizarre",
            player=spinner,
            move={"bizarre": True, "from": start, "to": caught_at or end, "spin": BIZARRE},
            text=text,
            extra={
                "caught": caught_at,
                "losses": losses,
                "next": nxt,
                "discs": [len(k) for k in table.kept],
            },
        )
        return verdict, table

    def _home_losses(
        self,
        table: _Table,
        places: Mapping[str, str],
        spared: Collection[int],
        losses: list[JSON],
        notes: list[str],
    ) -> _Table:
        """Each player but ``spared`` whose character stands on Dr. Bizarre's home (as
        ``places`` shows them) loses a disc as he comes home."""
        home = self._graph(table.board).home
        for player, colour in enumerate(self.colours):
            if player not in spared and places.get(colour) == home:
                table, note = self._lose(table, player, "stands on his home", losses)
                notes.append(note)
        return table

    def _keep(self, table: _Table, player: int, space: str) -> _Table:
        """``player`` holds the disc collected on ``space``, last in his collection order."""
        kept = list(table.kept)
        kept[player] = (*kept[player], space)
        return replace(table, kept=tuple(kept))

    def _victims(self, table: _Table, space: str) -> list[int]:
        """Players whose characters Dr. Bizarre catches on ``space``."""
        mover = table.to_move
        return [
            p
            for p, c in enumerate(self.colours)
            if table.board.where(c) == space
            and (self.settings["bizarre_targets"] == "all" or p != mover)
        ]

    def _walls(self, board: Board, mover: str) -> set[str]:
        if not self.settings["block"]:
            return set()
        return {s for c, s in board.characters if c != mover}

    def _others_moved(self, old: Board, board: Board, graph: Graph, keep: str | None) -> str:
        for colour in self.colours:
            if colour == keep:
                continue
            was, now = old.where(colour), board.where(colour)
            if now != was:
                assert was is not None
                return (
                    f"only {'the ' + keep + ' character' if keep else 'Dr. Bizarre'} moves now: "
                    f"put the {colour} character back on {graph.describe(was)}"
                )
        return ""

    def _stray_discs(self, old: Board, board: Board, graph: Graph, end: str | None) -> str:
        """What is wrong with the discs, given that a move ending on ``end`` may take one."""
        for space in sorted(board.discs - old.discs):
            return f"a disc appeared on {graph.describe(space)}: discs only leave the labyrinth"
        for space in sorted(old.discs - board.discs - {end}):
            return f"the disc on {graph.describe(space)} was taken: put it back"
        return ""

    def _lose(self, table: _Table, player: int, why: str, losses: list[JSON]) -> tuple[_Table, str]:
        name = self.names[player]
        kept = table.kept[player]
        if not kept:
            losses.append({"player": player, "disc": None})
            return table, f"{name} {why} but has no disc to lose"
        if self.settings["lose"] == "ask":
            losses.append({"player": player, "disc": None, "ask": True})
            table = replace(table, owed=(*table.owed, player))
            return table, f"{name} {why} and must set one disc aside"
        table, space = self._set_aside(table, player, self._lowest(kept))
        losses.append({"player": player, "disc": space})
        return table, f"{name} {why} and sets a disc aside"

    def _lowest(self, kept: tuple[str, ...]) -> int:
        return min(range(len(kept)), key=lambda k: (self.disc_value(kept[k]), k))

    def _set_aside(self, table: _Table, player: int, index: int) -> tuple[_Table, str]:
        kept = list(table.kept)
        lost = list(table.lost)
        space = kept[player][index]
        kept[player] = kept[player][:index] + kept[player][index + 1 :]
        lost[player] = (*lost[player], space)
        return replace(table, kept=tuple(kept), lost=tuple(lost)), space

    def _player_of(self, event: JSON) -> int:
        """The player an event names; ``InputError`` unless one of this match's."""
        player = event.get("player")
        if not is_int(player) or not 0 <= player < self.players:
            raise InputError(f"'player' must be 0 to {self.players - 1}, not {player!r}")
        return player

    def _choose_loss(self, table: _Table, event: JSON) -> tuple[Verdict, _Table]:
        player, disc = self._player_of(event), event.get("disc")
        name = self.names[player]
        if player not in table.owed:
            return self._illegal(table, f"{name} does not owe a disc"), table
        count = len(table.kept[player])
        if not is_int(disc) or not 0 <= disc < count:
            raise InputError(f"'disc' must be one of {name}'s discs, 0 to {count - 1}")
        table, space = self._set_aside(table, player, disc)
        owed = list(table.owed)
        owed.remove(player)
        verdict = Verdict(
            legal=True,
            reason="lose",
            player=player,
            move=None,
            text=f"{name} sets disc {disc + 1} aside.",
            extra={"disc": space},
        )
        return verdict, replace(table, owed=tuple(owed))

    def _finish(self, table: _Table) -> _Table:
        for player in table.owed:
            if table.kept[player]:
                table, _ = self._set_aside(table, player, self._lowest(table.kept[player]))
        return replace(table, owed=(), over=True)

    def _enter_values(self, table: _Table, event: JSON) -> tuple[Verdict, _Table]:
        player, values = self._player_of(event), event.get("values")
        if not table.over:
            return self._illegal(table, "discs are revealed when the game is over"), table
        count = len(table.kept[player])
        if (
            not isinstance(values, list)
            or len(values) != count
            or not all(is_int(v) and v >= 0 for v in values)
        ):
            raise InputError(f"'values' must list the brains on each of the player's {count} discs")
        entered = list(table.entered)
        entered[player] = tuple(values)
        table = replace(table, entered=tuple(entered))
        name = self.names[player]
        verdict = Verdict(
            legal=True,
            reason="discs",
            player=player,
            move=None,
            text=f"{name} reveals {sum(values)} brains; {self._result_text(table)}.",
            extra={"brains": self._brains(table), "winners": self._winners(table)},
        )
        return verdict, table

    def _brains(self, table: _Table) -> list[int]:
        return [
            sum(entered) if entered is not None else sum(self.disc_value(s) for s in kept)
            for kept, entered in zip(table.kept, table.entered, strict=True)
        ]

    def _winners(self, table: _Table) -> list[int]:
        brains = self._brains(table)
        return [p for p, b in enumerate(brains) if b == max(brains)]

    def _result_text(self, table: _Table) -> str:
        brains = self._brains(table)
        tally = ", ".join(f"{n} {b}" for n, b in zip(self.names, brains, strict=True))
        winners = self._winners(table)
        if len(winners) == 1:
            return f"{tally} brains; {self.names[winners[0]]} wins"
        return f"{tally} brains; {' and '.join(self.names[w] for w in winners)} share the win"

    def _illegal(self, table: _Table, reason: str) -> Verdict:
        mover = table.to_move if table.started and not table.over else None
        who = self.names[mover] if mover is not None else "The board"
        return Verdict(
            legal=False, reason=reason, player=mover, move=None, text=f"{who}: {reason}."
        )


def _listed(names: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _disc_name(space: str, graph: Graph) -> str:
    """How a collecting move's verdict names the disc taken from ``space``."""
    if space == graph.finish:
        return "the finish disc"
    if space == graph.home:
        return "Dr. Bizarre's hoard"
    return "the disc there"


def _disc_svg(value: int) -> str:
    """A face-up brain disc for a player's private view."""
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40" width="40" height="40">'
        '<circle cx="20" cy="20" r="18" fill="#f4c2c2" stroke="#7a3b3b" stroke-width="2"/>'
        f'<text x="20" y="26" font-size="16" text-anchor="middle" fill="#4a1f1f">{value}</text>'
        "</svg>"
    )
