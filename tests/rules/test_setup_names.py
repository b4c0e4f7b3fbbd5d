"""Player names are what people are called, shown as typed; each gets an ASCII id for addresses and topics."""

from __future__ import annotations

import unicodedata

import pytest

from companion.core.protocol import is_valid_id
from companion.errors import ConfigError
from companion.i18n import catalog_entries, render
from companion.rules.setup import (
    MAX_NAME_LENGTH,
    PlayerNameError,
    Seat,
    check_player_name,
    check_player_names,
    clean_player_names,
    find_player,
    make_setup,
    player_id,
)

PEOPLE = [
    "José María",
    "Zoë",
    "O'Neil",
    "O’Neil-Smith",
    "Anne-Marie",
    "Ægir",
    "Дмитрий",
    "李雷",
    "Đặng Thị Hà",
]


@pytest.mark.parametrize("name", PEOPLE + ["red", "ana_2", "x" * MAX_NAME_LENGTH, "'t Hooft", "Mª. José"])
def test_what_people_are_called_is_a_name(name):
    check_player_name(name)
    pid = player_id(name)
    assert is_valid_id(pid) and is_valid_id(f"{pid}-4"), "the id also makes node ids and topics"
    assert pid == player_id(name), "the same name always has the same id"


def test_ids_read_like_the_name_and_never_collide():
    assert player_id("red") == "red" and player_id("anne-marie") == "anne-marie", (
        "a plain id name is its own id"
    )
    assert player_id("José María").startswith("jose-maria-")
    assert player_id("Ægir").startswith("aegir-") and player_id("Zoë").startswith("zoe-")
    assert player_id("Дмитрий").startswith("player-") and player_id("李雷").startswith("player-")
    assert player_id("Anne Marie") != player_id("Anne-Marie")
    assert player_id("Anne-Marie") == player_id("anne-marie"), "one name in two cases is one player"
    assert player_id("Zoë") != player_id("Zoe") and player_id("李雷") != player_id("王芳")
    assert len({player_id(n) for n in PEOPLE}) == len(PEOPLE)


@pytest.mark.parametrize(
    "name, words",
    [
        ("", "Every player needs a name"),
        (" ana", "“ ana” starts or ends with a space"),
        ("ana ", "“ana ” starts or ends with a space"),
        ("ana/ben", "“ana/ben” cannot contain “/”"),
        ("ana\\ben", "cannot contain “\\”"),
        ("ana\tben", "“ana\ufffdben” contains an invisible or control character"),
        ("ana\u202eben", "contains an invisible or control character"),
        ("ana\u00a0ben", "contains an invisible or control character"),
        ("x" * (MAX_NAME_LENGTH + 1), "is longer than 20 characters"),
        ("ana😀", "cannot contain “😀”"),
        ("<b>", "cannot contain “<”"),
        ("--", "“--” needs at least one letter or digit"),
    ],
)
def test_names_people_cannot_have_are_refused_with_the_name(name, words):
    with pytest.raises(PlayerNameError) as refused:
        check_player_name(name)
    assert words in str(refused.value)
    assert isinstance(refused.value, ConfigError) and isinstance(refused.value, ValueError)
    for lang in ("es", "de"):
        shown = render(refused.value.text, lang)
        assert shown != str(refused.value), (lang, shown)
        if name:
            assert name.strip("\t\u202e\u00a0")[:3] in shown or "\ufffd" in shown, (
                "the message names the name"
            )


def test_the_length_limit_counts_letters_not_bytes_or_accents():
    nfd = unicodedata.normalize("NFD", "é" * MAX_NAME_LENGTH)
    assert len(nfd) == 2 * MAX_NAME_LENGTH
    check_player_name(nfd)
    check_player_name("李" * MAX_NAME_LENGTH)


@pytest.mark.parametrize(
    "names",
    [
        ["Ana", "ana"],
        ["ZOË", "zoë"],
        ["Zoë", unicodedata.normalize("NFD", "Zoë")],
        ["O'Neil", "O’Neil"],
    ],
)
def test_the_same_name_twice_is_refused(names):
    with pytest.raises(PlayerNameError, match=f"Two players are called “{names[1]}”"):
        check_player_names(names)


def test_names_are_trimmed_and_kept_as_typed():
    assert clean_player_names(["  José María ", "Zoe\u0308"]) == ("José María", "Zoë")
    with pytest.raises(PlayerNameError):
        clean_player_names(["ana", " ANA "])


def test_a_player_is_found_by_name_id_or_another_spelling():
    players = ("José María", "Zoë", "red")
    assert find_player(players, "José María") == "José María"
    assert find_player(players, player_id("José María")) == "José María"
    assert find_player(players, "JOSÉ MARÍA") == "José María"
    assert find_player(players, unicodedata.normalize("NFD", "Zoë")) == "Zoë"
    assert find_player(players, "red") == "red"
    assert find_player(players, "jose-maria") is None and find_player(players, "") is None


def test_a_setup_checks_its_players_names():
    seats = (Seat("Дмитрий", 1, player_id("Дмитрий") + "-1"), Seat("Zoë", 1, player_id("Zoë") + "-1"))
    setup = make_setup(table="t", players=("Дмитрий", "Zoë"), seats=seats)
    assert setup.players == ("Дмитрий", "Zoë")
    assert type(setup).from_dict(setup.to_dict()) == setup, "a game log's setup reads back"
    with pytest.raises(PlayerNameError, match="Two players"):
        make_setup(table="t", players=("Zoë", "ZOË"))
    with pytest.raises(ConfigError, match="cannot contain"):
        make_setup(table="t", players=("a/b",))


def test_every_name_message_is_in_both_catalogs():
    texts = []
    for bad in ("", " a", "a\tb", "x" * 21, "a/b", "--"):
        with pytest.raises(PlayerNameError) as refused:
            check_player_name(bad)
        texts.append(refused.value.text)
    with pytest.raises(PlayerNameError) as refused:
        check_player_names(["a", "A"])
    texts.append(refused.value.text)
    for lang in ("es", "de"):
        entries = catalog_entries(lang)
        assert [t.msgid for t in texts if t.msgid not in entries] == [], lang
    too_long = texts[3]
    assert render(too_long, "de") == "Der Name „xxxxxxxxxxxxxxxxxxxxx“ ist länger als 20 Zeichen"
    assert render(too_long, "es") == "El nombre «xxxxxxxxxxxxxxxxxxxxx» tiene más de 20 caracteres"
