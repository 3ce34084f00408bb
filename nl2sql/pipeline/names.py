"""Node names, shared by the wiring, the routes, the trace and the tests."""

from __future__ import annotations

CURATED_MATCHER = "curated_matcher"
PINNED_ENTRY = "pinned_entry"
DATASOURCE_RESOLVER = "datasource_resolver"
DECOMPOSER = "decomposer"
LAYER_ROUTER = "layer_router"
SQL_AGENT = "sql_agent"
AGGREGATOR = "aggregator"
ANSWER_SYNTHESIZER = "answer_synthesizer"

SCHEMA_RETRIEVER = "schema_retriever"
AST_PLANNER = "ast_planner"
LOGICAL_VALIDATOR = "logical_validator"
GENERATOR = "generator"
APPROVAL_GATE = "approval_gate"
EXECUTOR = "executor"
RETRY_HANDLER = "retry_handler"
REFINER = "refiner"

#: The answerability check is a skill of the resolver, with its own model spec.
ANSWERABILITY = "answerability"
