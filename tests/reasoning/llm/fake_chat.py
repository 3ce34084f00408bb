"""ScriptedChatModel: a LangChain chat model that answers from a script (LangGraph's
tests/fake_chat.py style), so the model path is tested without any server.

Each call takes the next script entry: a dict (the answer's JSON — a tool call when tools were
bound, else message content), a str (raw message content, e.g. malformed JSON), an exception
(raised, like an SDK error), or a callable(messages, kwargs) returning one of those.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field, PrivateAttr


class ScriptedChatModel(BaseChatModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: list[Any] = Field(default_factory=list)
    usage: tuple[int, int] = (100, 25)
    calls: list[dict[str, Any]] = Field(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: list[Any], *, tool_choice: Any = None, **kwargs: Any):
        return self.bind(
            tools=[convert_to_openai_tool(t) for t in tools], tool_choice=tool_choice, **kwargs
        )

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        with self._lock:
            self.calls.append({"messages": list(messages), "kwargs": kwargs})
            if not self.script:
                raise AssertionError("the scripted model was called more often than scripted")
            item = self.script.pop(0)
        if callable(item) and not isinstance(item, BaseException):
            item = item(messages, kwargs)
        if isinstance(item, BaseException):
            raise item
        meta = {
            "input_tokens": self.usage[0],
            "output_tokens": self.usage[1],
            "total_tokens": sum(self.usage),
        }
        tools = kwargs.get("tools") or []
        if tools and isinstance(item, dict):
            call = {
                "name": tools[0]["function"]["name"],
                "args": item,
                "id": f"call_{len(self.calls)}",
            }
            message = AIMessage(content="", tool_calls=[call], usage_metadata=meta)
        else:
            content = item if isinstance(item, str) else json.dumps(item)
            message = AIMessage(content=content, usage_metadata=meta)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def prompts(self) -> list[str]:
        """The text of every message of every call, for assertions on what the model saw."""
        return ["\n".join(str(m.content) for m in call["messages"]) for call in self.calls]
