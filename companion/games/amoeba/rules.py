"""The Amoeba referee: turns, the consecutive-tile rule, "amoeba!" calls, scores and the winner.

The rules are the seed's (games/amoeba.md lists the decisions where it is silent).  A match's
whole position is one immutable ``_Table``, so judging a turn is a pure function from table and
board to verdict and table: ``judge`` keeps the result, ``preview`` throws it away, and replaying
the same inputs from the same settings always rebuilds the same match.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, replace

from companion.errors import InputError
from companion.games.amoeba.deck import Card, card_by_key, deck_of, read_deck
from companion.games.amoeba.model import SIZE, ShapeKey, Tray, cell_name, loops
from companion.games.base import JSON, TableMatch, Verdict
from companion.games.settings import is_int, player_settings

log = logging.getLogger(__name__)

HAND = 3
DEFAULT_TARGET = 50


def match_settings(options: JSON) -> JSON:
    """Validate page/CLI options and fill in every default, so the stored settings replay exactly.

    Keys: ``players`` 2-4 (default: the number of ``names``, else 2), ``names``, ``seed`` (chosen
    here when missing), ``deal`` (True: the companion shuffles and deals; False: players enter
    the cards they hold with ``hand`` events), ``deck`` (None for the built-in deck; a deck
    file's path is read here and the settings keep what it holds, see ``_deck_setting``),
    ``target`` (points to win, 50) and ``first`` (index of the first mover).  Other keys are
    passed through untouched for the core.
    """
    common = player_settings(options, "amoeba")
    out = dict(options)
    deal = options.get("deal", True)
    if not isinstance(deal, bool):
        raise InputError(f"'deal' must be true or false, not {deal!r}")
    deck = options.get("deck")
    if deck is not None:
        deck = _deck_setting(deck)
    target = options.get("target", DEFAULT_TARGET)
    if not is_int(target) or target < 1:
        raise InputError(f"'target' must be a positive number of points, not {target!r}")
    out.update(
        **common,
        deal=deal,
        deck=deck,
        target=target,
    )
    return out


def _deck_setting(deck: object) -> JSON:
    """A user's deck as the settings hold it: the JSON of the deck file, not its path, so the
    match never reads a file and its record replays anywhere.  A path (given on the command
    line, or kept in settings stored before decks were held this way) is read now, when the
    game is set up; content already held is checked again.  A bad deck is reported here, not
    mid-game."""
    if isinstance(deck, str) and deck:
        return read_deck(deck)
    if isinstance(deck, dict):
        deck_of(deck)
        return deck
    raise InputError(f"'deck' must be the path of a deck file, not {deck!r}")


def _new_shapes(before: Tray, after: Tray) -> set[ShapeKey]:
    """The shapes of the loops ``after`` shows that ``before`` did not: only a loop the turn
    closed scores, not one already lying on the tray."""
    old = {loop.points for loop in loops(before)}
    return {loop.key for loop in loops(after) if loop.points not in old}


def _amoeba_call(holder: int, card: Card) -> JSON:
    """One "amoeba!" call as the verdict lists it."""
    return {
        "player": holder,
        "card": card.id,
        "points": card.points,
        "key": [list(p) for p in card.key],
    }


@dataclass(frozen=True)
class _Table:
    """Everything that changes during a match."""

    tray: Tray
    started: bool
    last_tile: tuple[int, int] | None
    to_move: int
    scores: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    pile: tuple[int, ...]
    discards: tuple[int, ...]
    winner: int | None
    over: bool


class AmoebaMatch(TableMatch[Tray, _Table]):
    """One game of Amoeba.

    End of the game: the first player whose total reaches ``target`` wins.  If one move takes
    several players over the target (the mover and an opponent scoring at once), the higher
    total wins, and on equal totals the player nearest the mover in turn order (the mover
    first).  If every card has been scored before anyone reaches the target, the highest total
    wins; a tie for it is a draw (``winner`` None, ``finished`` True).
    """

    def __init__(self, settings: JSON) -> None:
        self.settings = match_settings(settings)
        self.names: list[str] = self.settings["names"]
        self.players: int = self.settings["players"]
        self.target: int = self.settings["target"]
        self.deal: bool = self.settings["deal"]
        self.deck = deck_of(self.settings["deck"])
        self._cards = {card.id: card for card in self.deck}
        self._by_key = card_by_key(self.deck)
        ids = [card.id for card in self.deck]
        hands: tuple[tuple[int, ...], ...] = tuple(() for _ in range(self.players))
        if self.deal:
            random.Random(self.settings["seed"]).shuffle(ids)
            hands = tuple(tuple(ids[p * HAND : (p + 1) * HAND]) for p in range(self.players))
            ids = ids[self.players * HAND :]
        self._table = _Table(
            tray=Tray.start(0),
            started=False,
            last_tile=None,
            to_move=self.settings["first"],
            scores=(0,) * self.players,
            hands=hands,
            pile=tuple(ids) if self.deal else (),
            discards=(),
            winner=None,
            over=False,
        )

    # --- Match interface ------------------------------------------------------------------
    @property
    def state(self) -> Tray:
        return self._table.tray

    def handle(self, event: JSON) -> Verdict | None:
        """``{"event": "hand", "player": i, "cards": [ids]}`` sets what a player holds.

        Players who deal the real cards themselves enter their hand at the start and after each
        draw; with the companion dealing it corrects a hand (cards given up go to the bottom of
        the pile, cards taken come out of it).
        """
        player, cards = self._hand_event(event)
        self._check_holdable(self._table, player, cards)
        self._table = self._with_hand(self._table, player, cards)
        name = self.names[player]
        return Verdict(
            legal=True,
            reason="hand",
            player=player,
            move=None,
            text=f"{name} holds {len(cards)} card{'s' if len(cards) != 1 else ''}.",
            extra={"cards": len(cards)},
        )

    def public_view(self) -> JSON:
        table = self._table
        summary = [f"First to {self.target} points", f"{self._deck_left(table)} cards left"]
        if table.last_tile:
            summary.append(f"last tile turned: {cell_name(*table.last_tile)}")
        return {
            "players": [
                {
                    "name": name,
                    "score": score,
                    "cards": len(hand),
                    "detail": f"{len(hand)} card{'' if len(hand) == 1 else 's'}",
                }
                for name, score, hand in zip(self.names, table.scores, table.hands, strict=True)
            ],
            "summary": summary,
            "to_move": table.to_move,
            "deck_left": self._deck_left(table),
            "last_tile": cell_name(*table.last_tile) if table.last_tile else None,
            "target": self.target,
            "winner": table.winner,
            "started": table.started,
        }

    def private_view(self, player: int) -> JSON:
        from companion.games.amoeba.svg import shape_svg

        cards = [self._cards[c] for c in self._table.hands[player]]
        return {
            "title": "Your cards",
            "items": [
                {
                    "id": card.id,
                    "points": card.points,
                    "label": card.label,
                    "svg": shape_svg(list(card.arcs)),
                }
                for card in cards
            ],
            **(
                {}
                if self.deal
                else {
                    "entry": {
                        "label": "The cards you hold (their numbers)",
                        "placeholder": "e.g. 12 7 33",
                    }
                }
            ),
        }

    def private_event(self, player: int, text: str) -> JSON:
        """The cards a player says he holds, when the players deal the real deck themselves."""
        if self.deal:
            raise InputError("Companion deals the cards in this game: there is nothing to enter")
        words = text.replace(",", " ").split()
        if not words or not all(w.isdecimal() for w in words):
            raise InputError(f"type the numbers printed on your cards, e.g. 12 7 33, not {text!r}")
        return {"event": "hand", "player": player, "cards": [int(w) for w in words]}

    # --- helpers for sample games and tests ----------------------------------------------
    def hand(self, player: int) -> tuple[Card, ...]:
        """The cards ``player`` holds, in the order they were dealt or entered."""
        return tuple(self._cards[c] for c in self._table.hands[player])

    @property
    def scores(self) -> tuple[int, ...]:
        return self._table.scores

    @property
    def to_move(self) -> int:
        return self._table.to_move

    @property
    def last_tile(self) -> tuple[int, int] | None:
        """The tile turned in the previous legal move: nobody may turn it next."""
        return self._table.last_tile

    @property
    def winner(self) -> int | None:
        return self._table.winner

    @property
    def pile(self) -> tuple[int, ...]:
        """Card ids still to be drawn, next first (empty when players deal themselves)."""
        return self._table.pile

    @property
    def discards(self) -> tuple[int, ...]:
        """Card ids scored so far, in scoring order."""
        return self._table.discards

    def legal_tiles(self) -> list[tuple[int, int]]:
        """Tiles the player to move may turn (none before the start or after the end)."""
        table = self._table
        if not table.started or table.over:
            return []
        every = [(r, c) for r in range(SIZE) for c in range(SIZE)]
        return [rc for rc in every if rc != table.last_tile]

    def preview(self, row: int, col: int) -> Verdict:
        """The verdict turning tile (row, col) would get now, without playing it."""
        return self._step(self._table, self._table.tray.turned(row, col))[0]

    # --- the rules ------------------------------------------------------------------------
    def _hand_event(self, event: JSON) -> tuple[int, list[int]]:
        """The player and cards a ``hand`` event names; anything else is refused before the
        match looks at the cards, so one message names the one thing to fix."""
        kind = event.get("event") if isinstance(event, dict) else None
        if kind != "hand":
            raise InputError(f"amoeba has no event {kind!r}: the only event is 'hand'")
        player, cards = event.get("player"), event.get("cards")
        if not is_int(player) or not 0 <= player < self.players:
            raise InputError(f"'player' must be 0 to {self.players - 1}, not {player!r}")
        if not isinstance(cards, list) or len(cards) > HAND or not all(is_int(c) for c in cards):
            raise InputError(f"'cards' must list at most {HAND} card numbers")
        if len(set(cards)) != len(cards):
            raise InputError("the same card is listed twice: list each card once")
        return player, cards

    def _check_holdable(self, table: _Table, player: int, cards: list[int]) -> None:
        """A card entered must be in the deck, unscored and in nobody else's hand: a number
        misread off a card is caught when it is entered, not when the card would score."""
        for card_id in cards:
            if card_id not in self._cards:
                raise InputError(f"there is no card {card_id} in this deck")
            if card_id in table.discards:
                raise InputError(f"card {card_id} has already been scored: check the number")
            for other, hand in enumerate(table.hands):
                if other != player and card_id in hand:
                    raise InputError(
                        f"card {card_id} is in {self.names[other]}'s hand: correct that hand first"
                    )

    def _with_hand(self, table: _Table, player: int, cards: list[int]) -> _Table:
        """``player`` holds ``cards``: they come out of the pile, and when the companion deals,
        the cards he gave up go to its bottom so they can be dealt again."""
        returned = tuple(c for c in table.hands[player] if c not in cards)
        pile = tuple(c for c in table.pile if c not in cards)
        if self.deal:
            pile += returned
        hands = tuple(tuple(cards) if p == player else h for p, h in enumerate(table.hands))
        return replace(table, hands=hands, pile=pile)

    def _deck_left(self, table: _Table) -> int:
        if self.deal:
            return len(table.pile)
        held = sum(len(h) for h in table.hands)
        return len(self.deck) - held - len(table.discards)

    def _step(self, table: _Table, board: Tray) -> tuple[Verdict, _Table]:
        if not table.started:
            return self._start(table, board)
        if table.over:
            return self._illegal(table, "the game is over: " + self._result_text(table)), table
        changed = table.tray.changed(board)
        if not changed:
            return self._illegal(table, "no tile was turned"), table
        if len(changed) > 1:
            names = ", ".join(cell_name(*rc) for rc in changed)
            reason = (
                f"{len(changed)} tiles turned ({names}): a turn is one quarter turn of one tile"
            )
            return self._illegal(table, reason), table
        tile = changed[0]
        if tile == table.last_tile:
            reason = (
                f"{cell_name(*tile)} was turned in the previous move: "
                "a tile may not be turned in two consecutive moves"
            )
            return self._illegal(table, reason), table
        return self._turn(table, board, tile)

    def _start(self, table: _Table, board: Tray) -> tuple[Verdict, _Table]:
        differ = min(len(Tray.start(phase).changed(board)) for phase in (0, 1))
        if differ:
            reason = (
                f"the tray is not set up in the pattern of circles: {differ} tiles differ"
                if differ > 1
                else "the tray is not set up in the pattern of circles: 1 tile differs"
            )
            return self._illegal(table, reason), table
        name = self.names[table.to_move]
        verdict = Verdict(
            legal=True,
            reason="start position",
            player=None,
            move=None,
            text=f"The tray shows the pattern of circles; {name} moves first.",
            extra={"next": table.to_move, "scores": list(table.scores), "winner": None},
        )
        return verdict, replace(table, tray=board, started=True)

    def _illegal(self, table: _Table, reason: str) -> Verdict:
        mover = table.to_move if table.started and not table.over else None
        who = self.names[mover] if mover is not None else "The board"
        return Verdict(
            legal=False, reason=reason, player=mover, move=None, text=f"{who}: {reason}."
        )

    def _turn(self, table: _Table, board: Tray, tile: tuple[int, int]) -> tuple[Verdict, _Table]:
        mover = table.to_move
        order = [(mover + k) % self.players for k in range(self.players)]
        amoebas, scored = self._score_cards(table, order, _new_shapes(table.tray, board))
        after = self._refill(scored, order)
        extra_turn = any(a["player"] == mover for a in amoebas)
        nxt = mover if extra_turn else (mover + 1) % self.players
        winner, over = self._outcome(after, order)
        new = replace(after, tray=board, last_tile=tile, to_move=nxt, winner=winner, over=over)
        verdict = self._turn_verdict(new, mover, tile, amoebas, extra_turn)
        log.debug("%s turns %s: %d amoebas", self.names[mover], cell_name(*tile), len(amoebas))
        return verdict, new

    def _score_cards(
        self, table: _Table, order: list[int], new_shapes: set[ShapeKey]
    ) -> tuple[list[JSON], _Table]:
        """Every card in a hand showing a shape the turn closed scores for its holder and is
        discarded; the calls come in turn order from the mover, each hand by card number, so
        the verdict's calls read the same on every replay."""
        amoebas: list[JSON] = []
        scores = list(table.scores)
        hands = [list(h) for h in table.hands]
        discards = list(table.discards)
        for holder in order:
            for card in sorted((self._cards[c] for c in table.hands[holder]), key=lambda c: c.id):
                if card.key in new_shapes:
                    scores[holder] += card.points
                    hands[holder].remove(card.id)
                    discards.append(card.id)
                    amoebas.append(_amoeba_call(holder, card))
        scored = replace(
            table,
            scores=tuple(scores),
            hands=tuple(tuple(h) for h in hands),
            discards=tuple(discards),
        )
        return amoebas, scored

    def _refill(self, table: _Table, order: list[int]) -> _Table:
        """When the companion deals, each player in turn order from the mover draws back up to
        a full hand while the pile lasts (players who deal themselves enter their draws)."""
        if not self.deal:
            return table
        hands = [list(h) for h in table.hands]
        pile = list(table.pile)
        for holder in order:
            while len(hands[holder]) < HAND and pile:
                hands[holder].append(pile.pop(0))
        return replace(table, hands=tuple(tuple(h) for h in hands), pile=tuple(pile))

    def _turn_verdict(
        self,
        new: _Table,
        mover: int,
        tile: tuple[int, int],
        amoebas: list[JSON],
        extra_turn: bool,
    ) -> Verdict:
        """The legal turn's verdict, ``new`` being the table after it."""
        mine = sum(a["points"] for a in amoebas if a["player"] == mover)
        return Verdict(
            legal=True,
            reason="amoeba" if amoebas else "turn",
            player=mover,
            move={"tile": cell_name(*tile), "to": new.tray[tile]},
            score=mine,
            text=self._turn_text(new, mover, tile, amoebas, extra_turn),
            extra={
                "amoebas": amoebas,
                **({"shout": "AMOEBA!"} if amoebas else {}),
                "extra_turn": extra_turn,
                "next": new.to_move,
                "scores": list(new.scores),
                "winner": new.winner,
            },
            svgs=self._card_svgs([self._cards[a["card"]] for a in amoebas]),
        )

    def _outcome(self, table: _Table, order: list[int]) -> tuple[int | None, bool]:
        """The winner (None: nobody yet, or a draw) and whether the game is over; ``order``
        from the mover breaks ties (the class's note gives the rule)."""
        scores = table.scores
        reached = [p for p in order if scores[p] >= self.target]
        if reached:
            return max(reached, key=lambda p: scores[p]), True
        if any(table.hands) or table.pile or not self.deal:
            return None, False
        best = max(scores)
        leaders = [p for p in order if scores[p] == best]
        return (leaders[0] if len(leaders) == 1 else None), True

    def _turn_text(
        self,
        table: _Table,
        mover: int,
        tile: tuple[int, int],
        amoebas: list[JSON],
        extra_turn: bool,
    ) -> str:
        name = self.names[mover]
        text = f"{name} turns {cell_name(*tile)}"
        if amoebas:
            calls = ", ".join(
                f"card {a['card']} scores {a['points']} for {self.names[a['player']]}"
                for a in amoebas
            )
            text += f": amoeba! {calls}"
        if table.over:
            return f"{text}; {self._result_text(table)}."
        if extra_turn:
            return f"{text}; {name} plays again."
        return f"{text}; {self.names[table.to_move]} to move."

    def _result_text(self, table: _Table) -> str:
        if table.winner is None:
            return "the game is drawn"
        return f"{self.names[table.winner]} wins with {table.scores[table.winner]} points"

    def _card_svgs(self, cards: list[Card]) -> list[str]:
        if not cards:
            return []
        from companion.games.amoeba.svg import shape_svg

        return [shape_svg(list(card.arcs)) for card in cards]
