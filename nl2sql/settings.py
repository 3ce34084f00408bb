"""Settings: defaults < config file < environment (NL2SQL_*) < %config < explicit arguments.

The config file is `nl2sql.toml` in the working folder or a parent (or `[tool.nl2sql]` in a
`pyproject.toml`). `${ENV_VAR}` in any string value is expanded from the environment; an unset
variable is a ConfigError naming it (never its value).
"""

from __future__ import annotations

import os
import re
import tomllib
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from nl2sql.errors import ConfigError, mask_url_passwords

CONFIG_FILE = "nl2sql.toml"
PROJECT_DIR = ".nl2sql"
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
# A datasource id names files (its schema snapshot), so it must be one plain file name.
_SOURCE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
SOURCE_ID_RULE = "1-64 ASCII letters, digits, '_', '-' or '.', starting with a letter or digit"
# Keys whose values are secrets wherever a configuration is shown (repr, str).
_SECRET_KEY = re.compile(r"pass(word)?|secret|token|api_?key|credential", re.IGNORECASE)


class Settings(BaseSettings):
    """Pipeline settings. Environment variables are NL2SQL_<FIELD> (e.g. NL2SQL_ROW_CAP)."""

    model_config = SettingsConfigDict(env_prefix="NL2SQL_", extra="forbid")

    row_cap: int = Field(10_000, ge=1, description="rows kept per sub-query result")
    statement_timeout_s: float = Field(30.0, gt=0, description="per-statement timeout")
    pipeline_timeout_s: float = Field(60.0, gt=0, description="whole-run timeout")
    max_sql_bytes: int = Field(
        20_000, ge=1, description="longest SQL text (UTF-8 bytes) the SQL guard checks; longer "
        "text is refused before parsing (TOO_LARGE). The guard cannot be stopped mid-parse and "
        "costs ~15 µs of CPU per byte, so this bounds how long a timed-out run may still compute: "
        "at 20,000 bytes the worst shape measured ~0.4 s of CPU (docs/failure_recovery.md)"
    )
    max_question_chars: int = Field(
        4000, ge=1, description="longest question accepted; a longer one is refused before the run"
    )
    sql_agent_max_retries: int = Field(3, ge=0)
    sql_agent_retry_base_delay_sec: float = Field(0.05, ge=0)
    sql_agent_retry_max_delay_sec: float = Field(1.0, ge=0)
    sql_agent_retry_jitter_sec: float = Field(0.05, ge=0)
    logical_validator_strict_columns: bool = True
    sample_values: int = Field(20, ge=0, description="distinct values sampled per text column")
    retrieval_top_k_tables: int = Field(8, ge=1)
    retrieval_top_k_datasources: int = Field(3, ge=1)
    retrieval_min_tables: int = Field(
        12, ge=1, description="schemas with at most this many tables skip table retrieval"
    )
    exact_search_max_tables: int = Field(
        2000, ge=0, description="up to this many tables (all sources together) are searched in "
        "memory; more use the persisted chromadb store (slow to import, pays off when large)"
    )
    artifact_root: str | None = Field(
        None, description="where result artifacts go: a folder, or object storage through fsspec "
        "(s3://bucket/prefix, gs://…, abfs://…; credentials from the environment or the provider "
        "chain, never here); default: the project folder's artifacts/"
    )
    artifact_storage_options: dict[str, Any] = Field(
        default_factory=dict, description="fsspec options of a remote artifact_root that are not "
        "secrets, e.g. {endpoint_url = \"http://127.0.0.1:9000\"} or region_name"
    )
    artifact_path_template: str = "{root}/{tenant_id}/{request_id}/{sub_query_id}.parquet"
    artifact_retention: int = Field(
        1000, ge=0, description="result artifacts kept (the newest); 0 keeps every one"
    )
    artifact_retention_days: float = Field(
        0.0, ge=0, description="result artifacts older than this are removed; 0: no age limit"
    )
    answer_preview_rows: int = Field(20, ge=1)
    min_confidence: float = Field(
        0.5, ge=0.0, le=1.0,
        description="below this planner confidence a run is not answered: it ends with status "
        "needs_clarification and lists the candidate readings to choose from (0: always answer)",
    )
    push_down: bool = Field(
        True, description="run a combine whose sub-queries share one datasource as one query "
        "on that engine (False: every sub-query is fetched and combined locally)"
    )
    combine_max_rows: int = Field(
        1_000_000, ge=1, description="most rows (all inputs together) a combine across engines "
        "pulls into the local DuckDB; more is refused (COMBINE_TOO_LARGE)"
    )
    combine_max_bytes: int = Field(
        1_000_000_000, ge=1, description="most bytes (Arrow, all inputs together) a combine "
        "across engines pulls into the local DuckDB; more is refused (COMBINE_TOO_LARGE)"
    )
    reference_date: date | None = Field(
        None, description="the day relative dates ('last month') count from; default: today"
    )
    project_dir: Path | None = None  # default: .nl2sql beside the config file, or in the cwd


def reference_date(settings: Settings) -> date:
    """The run's reference date: the `reference_date` setting, else today."""
    return settings.reference_date or date.today()


def check_source_id(source_id: object) -> str:
    """`source_id`, or a ConfigError naming it and what an id may be (ids become file names).

    >>> check_source_id("crm_2024")
    'crm_2024'
    """
    if not isinstance(source_id, str) or not _SOURCE_ID.fullmatch(source_id):
        shown = ascii(source_id) if isinstance(source_id, str) else repr(source_id)
        raise ConfigError(f"datasource id {shown} is not allowed: use {SOURCE_ID_RULE}")
    return source_id


def masked(value: Any) -> Any:
    """`value` fit to show: URL passwords masked, values of secret-named keys replaced."""
    if isinstance(value, str):
        return mask_url_passwords(value)
    if isinstance(value, dict):
        return {
            k: "***" if isinstance(k, str) and _SECRET_KEY.search(k) and v else masked(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return type(value)(masked(v) for v in value)
    return value


class _Masked(BaseModel):
    """A model whose repr and str never show a password or a key."""

    def __repr_args__(self) -> Any:
        for name, value in super().__repr_args__():
            yield name, masked(value) if not isinstance(value, BaseModel) else value


class SourceConfig(_Masked):
    """One `[sources.<id>]` table of the config file."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = None
    path: str | None = None
    description: str | None = None
    row_cap: int | None = None
    timeout_s: float | None = None

    @property
    def location(self) -> str:
        if not (self.url or self.path):
            raise ConfigError("a source needs `url` or `path`")
        return self.url or self.path  # type: ignore[return-value]


class PoliciesConfig(BaseModel):
    """`[policies]`: role-based access (a YAML file or inline roles) and the built-in
    execute.before policies."""

    model_config = ConfigDict(extra="forbid")

    file: str | None = None  # YAML policy file (roles); relative to the config file
    roles: dict[str, Any] = Field(default_factory=dict)  # inline roles, same shape as the file's
    require_approval: bool = False  # every execution needs an approval
    # datasource -> table -> ["column", ...] or "*": plans touching them need an approval
    sensitive: dict[str, dict[str, list[str] | str]] = Field(default_factory=dict)
    # a plan without LIMIT over a table with more rows than this needs an approval
    max_rows_without_limit: int | None = Field(None, ge=0)

    @property
    def configured(self) -> bool:
        return bool(self.file or self.roles)


class CuratedConfig(BaseModel):
    """`[curated]`: the verified answers file and how close a question must be to match."""

    model_config = ConfigDict(extra="forbid")

    file: str | None = None  # YAML file of verified question -> SQL; relative to the config file
    threshold: float = Field(0.9, gt=0.0, le=1.0, description="embedding similarity to match")


class FileConfig(_Masked):
    """The whole config file, validated."""

    model_config = ConfigDict(extra="forbid")

    sources: dict[str, SourceConfig] = Field(default_factory=dict)
    models: dict[str, Any] = Field(default_factory=dict)  # validated by reasoning.llm.config
    settings: dict[str, Any] = Field(default_factory=dict)
    policies: PoliciesConfig = Field(default_factory=PoliciesConfig)
    curated: CuratedConfig = Field(default_factory=CuratedConfig)
    # the semantic layer: `file` (YAML) and/or its keys inline; validated by nl2sql.semantic.load
    semantic: dict[str, Any] = Field(default_factory=dict)
    path: Path | None = None

    def relative(self, name: str) -> Path:
        """A path named in the config, relative to the config file's folder (or the cwd)."""
        path = Path(name).expanduser()
        if path.is_absolute():
            return path
        return (self.path.parent if self.path else Path.cwd()) / path


def find_config_file(start: Path | None = None) -> Path | None:
    """The nearest nl2sql.toml (or pyproject.toml with [tool.nl2sql]) from `start` upwards."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_FILE
        if candidate.is_file():
            return candidate
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and "tool" in (data := _read_toml(pyproject)) and "nl2sql" in data["tool"]:
            return pyproject
    return None


def load_config_file(path: Path | None) -> FileConfig:
    """Parse and validate a config file; `None` gives an empty configuration."""
    if path is None:
        return FileConfig()
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file not found: {path.name}")
    data = _read_toml(path)
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("nl2sql", {})
    try:
        config = FileConfig.model_validate(expand_env(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"{path.name}: {where}: {first['msg']}") from None
    for source_id in config.sources:
        try:
            check_source_id(source_id)
        except ConfigError as exc:
            raise ConfigError(f"{path.name}: sources: {exc}") from None
    return config.model_copy(update={"path": path.resolve()})


def build_settings(file_settings: dict[str, Any], overrides: dict[str, Any] | None = None) -> Settings:
    """Settings from the file's [settings], then NL2SQL_* environment, then explicit overrides."""
    env_names = {k for k in Settings.model_fields if f"NL2SQL_{k.upper()}" in os.environ}
    base = {k: v for k, v in file_settings.items() if k not in env_names}
    try:
        # Settings() reads the environment; init kwargs would override it, so pass only the
        # file values the environment does not set, then apply explicit overrides on top.
        settings = Settings(**base)
        if overrides:
            settings = Settings(**{**settings.model_dump(), **overrides})
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfigError(f"setting {first['loc'][0]}: {first['msg']}") from None
    return settings


def expand_env(value: Any) -> Any:
    """Expand ${VAR} in every string of a nested structure."""
    if isinstance(value, str):
        return _ENV_REF.sub(_env_value, value)
    if isinstance(value, dict):
        return {k: expand_env(v) for k, v in value.items()}
    if isinstance(value, list):
        return [expand_env(v) for v in value]
    return value


def _env_value(match: re.Match[str]) -> str:
    name = match.group(1)
    if name not in os.environ:
        raise ConfigError(f"environment variable {name} is referenced in the config but not set")
    return os.environ[name]


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path.name} is not valid TOML: {exc}") from None


def project_dir(settings: Settings, config: FileConfig) -> Path:
    """Where persistent state lives: settings.project_dir, else beside the config file, else cwd."""
    if settings.project_dir is not None:
        return Path(settings.project_dir)
    base = config.path.parent if config.path else Path.cwd()
    return base / PROJECT_DIR
