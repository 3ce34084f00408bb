"""RetryHandlerNode: wait (exponential backoff with jitter) and open the next attempt."""

from __future__ import annotations

import random
import time
from typing import Any

from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.names import RETRY_HANDLER
from nl2sql.pipeline.nodes.common import reasoning
from nl2sql.pipeline.state import SubgraphExecutionState

NODE = RETRY_HANDLER


def backoff_delay(attempt: int, base: float, cap: float, jitter: float, rng: random.Random) -> float:
    """min(cap, base * 2**attempt) plus uniform jitter in [0, jitter]."""
    return min(cap, base * (2.0**attempt)) + rng.uniform(0.0, jitter)


class RetryHandlerNode:
    def __call__(self, state: SubgraphExecutionState, runtime: Runtime[NL2SQLContext]) -> dict[str, Any]:
        ctx = runtime.context
        s = ctx.settings
        delay = backoff_delay(state.retry_count, s.sql_agent_retry_base_delay_sec,
                              s.sql_agent_retry_max_delay_sec, s.sql_agent_retry_jitter_sec,
                              random.Random())
        deadline = time.monotonic() + delay
        # Sleep in slices so a cancelled run does not wait out the backoff.
        while not ctx.cancel_token.cancelled and time.monotonic() < deadline:
            time.sleep(min(0.02, max(0.0, deadline - time.monotonic())))
        return {
            "retry_count": state.retry_count + 1,
            # A new attempt starts clean: only the plan and the feedback carry over.
            "logical_validator_response": None,
            "generator_response": None,
            "executor_response": None,
            "reasoning": [reasoning(NODE, f"attempt {state.retry_count + 1} after {delay:.2f}s")],
        }
