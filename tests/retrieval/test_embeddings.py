from __future__ import annotations

import numpy as np
import pytest

from nl2sql.retrieval.embeddings import HashingEmbedding, split_identifiers, stem, terms


def cos(a: str, b: str, emb: HashingEmbedding | None = None) -> float:
    emb = emb or HashingEmbedding()
    return float(emb.embed(a) @ emb.embed(b))


@pytest.mark.parametrize(
    ("identifier", "words"),
    [
        ("order_items", ["order", "item"]),
        ("orderItems", ["order", "item"]),
        ("OrderItems", ["order", "item"]),
        ("sales.HTTPRequests", ["sal", "http", "request"]),
        ("customer-addresses", ["customer", "address"]),
    ],
)
def test_identifiers_read_as_words(identifier: str, words: list[str]) -> None:
    assert terms(identifier) == words


def test_plurals_and_verb_forms_share_a_stem() -> None:
    assert stem("orders") == stem("order")
    assert stem("categories") == stem("category")
    assert stem("shipped") == stem("shipping") == stem("ship")
    assert stem("prices") == stem("priced") == stem("price")
    assert stem("status") == "status" and stem("class") == "class"


def test_question_scaffolding_is_not_content() -> None:
    assert terms("How many of the orders were shipped?") == ["order", "ship"]
    assert split_identifiers("unit_price") == "unit price"


def test_identifier_and_prose_spellings_embed_alike() -> None:
    assert cos("order_items", "order items") == pytest.approx(1.0, abs=1e-6)
    assert cos("orderItems", "Order items") == pytest.approx(1.0, abs=1e-6)
    assert cos("orders", "order") == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize(
    ("question", "synonym_doc", "unrelated_doc"),
    [
        ("revenue by month", "sales by month", "tickets by month"),
        ("total amount per client", "sales per customer", "tickets per agent"),
        ("open support issues", "support tickets", "support staff"),
        ("staff per office", "employees per office", "products per office"),
        ("vendors of parts", "suppliers of parts", "customers of parts"),
    ],
)
def test_generic_synonyms_bring_texts_closer(
    question: str, synonym_doc: str, unrelated_doc: str
) -> None:
    assert cos(question, synonym_doc) > cos(question, unrelated_doc) + 0.1


def test_character_ngrams_tolerate_typos() -> None:
    typo = cos("custmer adress", "customer address")
    assert typo > 0.08 and typo > cos("custmer adress", "product price") + 0.08


def test_vectors_are_unit_length_deterministic_and_sized() -> None:
    emb = HashingEmbedding(dims=512)
    first, second = emb(["Patients admitted to the ICU", "Patients admitted to the ICU"])
    assert first.shape == (512,) and first.dtype == np.float32
    assert np.linalg.norm(first) == pytest.approx(1.0, abs=1e-5)
    assert np.array_equal(first, second)
    # a fixed feature hash: this value must not change between processes or releases,
    # or every persisted collection would silently stop matching its queries
    assert HashingEmbedding().embed("orders").nonzero()[0][:3].tolist() == [139, 294, 328]


def test_text_without_content_words_embeds_to_zero() -> None:
    assert not HashingEmbedding().embed("how many of the").any()


def test_config_round_trip_rebuilds_the_same_embedding() -> None:
    emb = HashingEmbedding(dims=256)
    rebuilt = HashingEmbedding.build_from_config(emb.get_config())
    assert rebuilt.dims == 256
    assert np.array_equal(rebuilt.embed("late fines"), emb.embed("late fines"))
    assert HashingEmbedding.name() == "nl2sql_hashing"
    with pytest.raises(ValueError, match="dims"):
        emb.validate_config_update({"dims": 256}, {"dims": 512})
