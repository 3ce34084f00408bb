"""Node names, shared by the wiring, the routes, the trace, the notebook and the tests.

They live below the pipeline, not in `nl2sql/pipeline/`, because code the pipeline calls
(governance, aggregation, validation, the model registry) names nodes too and may not import
`nl2sql.pipeline`.
"""

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

#: Where errors come from outside the graph's nodes: an approval decision, the run itself.
APPROVAL = "approval"
RUNTIME = "runtime"

#: The trace's own nodes: the input state, a sub-query's filtered input, a merge of branches.
TRACE_ROOT = "__root__"
TRACE_FILTER = "__filter__"
TRACE_MERGE = "__merge__"
