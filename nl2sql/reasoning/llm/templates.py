"""Prompt templates: package data in `reasoning/llm/prompts/*.md`, rendered here.

A template is markdown with two top-level sections, `# system` and `# user`, and `{{name}}`
placeholders. Rendering fails loudly on a placeholder without a value, so a template and its
builder cannot drift apart silently. Fragments (the plan format, dialect notes) are files too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from nl2sql.names import ANSWER_SYNTHESIZER, ANSWERABILITY, AST_PLANNER, DECOMPOSER, REFINER

_PLACEHOLDER = re.compile(r"\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}")
_SECTION = re.compile(r"^# (system|user)\s*$", re.MULTILINE)

#: The prompt files (package data in `reasoning/llm/prompts/`), by template name.
PROMPT_FILES: dict[str, str] = {
    name: f"{name}.md"
    for name in (ANSWERABILITY, DECOMPOSER, AST_PLANNER, "plan_format", "dialects", REFINER,
                 ANSWER_SYNTHESIZER, "reask", "relationships")
}


@dataclass(frozen=True)
class Prompt:
    """A rendered prompt: the system and user messages."""

    system: str
    user: str

    def messages(self) -> list[Any]:
        """As LangChain messages."""
        from langchain_core.messages import HumanMessage, SystemMessage

        return [SystemMessage(content=self.system), HumanMessage(content=self.user)]

    def text(self) -> str:
        """Both messages as one text (snapshots, size accounting)."""
        return f"# system\n\n{self.system}\n\n# user\n\n{self.user}\n"


@cache
def load_text(name: str) -> str:
    """The raw text of a prompt file."""
    return resources.files("nl2sql.reasoning.llm").joinpath("prompts", PROMPT_FILES[name]).read_text(
        encoding="utf-8"
    )


def fill(template: str, values: dict[str, Any]) -> str:
    """Replace every {{name}}; KeyError naming the first placeholder without a value."""

    def one(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            raise KeyError(f"prompt placeholder {{{{{key}}}}} has no value")
        return str(values[key])

    return _PLACEHOLDER.sub(one, template)


def render(name: str, **values: Any) -> Prompt:
    """Render the template `name` into its system and user messages."""
    parts = _SECTION.split(load_text(name))
    sections = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    if set(sections) != {"system", "user"}:
        raise ValueError(f"prompt {name!r} needs a '# system' and a '# user' section")
    return Prompt(system=fill(sections["system"], values), user=fill(sections["user"], values))


def fragment(name: str, section: str | None = None) -> str:
    """A fragment file, or one `## section` of it (e.g. one dialect's notes); '' if absent."""
    text = load_text(name)
    if section is None:
        return text.strip()
    match = re.search(
        rf"^## {re.escape(section)}\s*$(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL
    )
    return match.group(1).strip() if match else ""


def render_reask(previous: str, problems: list[str], limit: int = 6000) -> str:
    """The message that asks again: what was wrong and the previous answer (trimmed)."""
    shown = previous if len(previous) <= limit else previous[:limit] + "\n… (cut)"
    return fill(
        load_text("reask").strip(),
        {"problems": "\n".join(f"- {p}" for p in problems), "previous": shown or "(empty)"},
    )


def estimate_tokens(text: str) -> int:
    """Tokens of `text`, estimated as characters / 4 (no tokenizer needed, ±20% for English)."""
    return (len(text) + 3) // 4
