"""`nl2sql doctor`: the effective configuration and where each value came from, and a check of
everything `ask` will load — the config file, settings, project folder, policies, hooks, curated
answers, each model (one real structured call per distinct model, none with --offline) and each
datasource (opened read-only, its schema read) — as rich tables, then one line per problem.
Exit 1 when anything is broken. Keys are shown as set / missing, never their values.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from rich.markup import escape

from nl2sql.errors import ConfigError, NL2SQLError, safe_one_line

if TYPE_CHECKING:
    from rich.console import Console

    from nl2sql.datasources.base import DatasourceAdapter
    from nl2sql.reasoning.llm.config import ModelConfig
    from nl2sql.schema.models import SchemaSnapshot
    from nl2sql.settings import FileConfig, Settings

PROBE = 'Reply with the JSON object {"reply": "OK"} and nothing else.'


class DoctorProbe(BaseModel):
    """The probe's response model: a model that cannot answer this cannot answer any node."""

    reply: str


@dataclass(frozen=True)
class Probe:
    """The outcome of one check: ok, and a one-line detail."""

    ok: bool
    detail: str
    snapshot: SchemaSnapshot | None = None  # a datasource's schema, when it was read


def run_doctor(
    console: Console,
    *,
    config: str | None = None,
    offline: bool = False,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Print the checks; 0 when everything works, 1 otherwise (one line per problem)."""
    from nl2sql.settings import find_config_file, load_config_file

    env = os.environ if environ is None else environ
    problems: list[str] = []
    file_config = _attempt(
        "config", problems, lambda: load_config_file(Path(config) if config else find_config_file())
    )
    if file_config is None:
        return _report(console, problems, offline)
    where = (
        str(file_config.path)
        if file_config.path
        else "none found (defaults, environment, demo data)"
    )
    console.print(f"[bold]config file:[/bold] {escape(where)}")
    settings = _settings(file_config, problems)
    console.print(_settings_table(file_config, settings, env))
    _check_project(file_config, settings, problems)
    models = _attempt("models", problems, lambda: _resolve(file_config, env))
    if models is not None:
        # No explicit models here, and a file cannot say "no model": every node has a config.
        configs = {node: c for node, c in models.configs.items() if c is not None}
        probes = {} if offline else _probe_models(configs)
        console.print(_models_table(configs, models.sources, probes, env, offline))
        problems += _model_problems(probes, configs)
    sources = _check_sources(file_config, settings)
    console.print(_sources_table(sources))
    problems += [f"datasource {sid}: {p.detail}" for sid, _, p in sources if not p.ok]
    _report_warnings(console, _check_layer(file_config, sources, problems))
    return _report(console, problems, offline)


def _check_layer(file_config: FileConfig, sources: list[tuple[str, str, Probe]],
                 problems: list[str]) -> list[str]:
    """The semantic layer checked against the schemas read (a problem when it is wrong); a
    warning per source of several tables that no relationship, declared or described, joins."""
    from nl2sql.semantic.check import check_layer
    from nl2sql.semantic.load import load_layer

    loaded = _attempt("semantic layer", problems, lambda: load_layer(file_config))
    snapshots = {sid: p.snapshot for sid, _, p in sources if p.snapshot is not None}
    if loaded is not None:
        _attempt("semantic layer", problems,
                 lambda: check_layer(loaded, snapshots.__getitem__, list(snapshots)))
    described = set(loaded.layer.sources) if loaded is not None else set()
    return [
        f"datasource {sid}: {len(s.tables)} tables and no relationship between them, declared "
        f"or described: joins are guessed from names; draft some with `nl2sql describe {sid} "
        "-o semantic.yaml`, review them, and name the file in [semantic]"
        for sid, s in snapshots.items()
        if len(s.tables) > 1 and not any(t.foreign_keys for t in s.tables)
        and not (sid in described and loaded is not None and loaded.layer.sources[sid].relationships)
    ]


def _report_warnings(console: Console, warnings: list[str]) -> None:
    for line in warnings:
        console.print(f"[yellow]![/yellow] {escape(safe_one_line(line, 400))}", soft_wrap=True)


def _model_problems(probes: Mapping[str, Probe], configs: Mapping[str, ModelConfig]) -> list[str]:
    """One line per broken model (nodes sharing a model share its probe), naming its nodes."""
    nodes: dict[int, list[str]] = {}
    for node, probe in probes.items():
        nodes.setdefault(id(probe), []).append(node)
    return [
        f"model {configs[names[0]].model} ({', '.join(names)}): {probes[names[0]].detail}"
        for names in nodes.values()
        if not probes[names[0]].ok
    ]


def _report(console: Console, problems: list[str], offline: bool) -> int:
    """One line per problem and the count; 1 when there is any."""
    if problems:
        for line in problems:
            console.print(f"[red]✗[/red] {escape(safe_one_line(line, 400))}", soft_wrap=True)
        console.print(f"[bold red]{len(problems)} problem(s) found[/bold red]")
        return 1
    console.print(
        "[bold green]everything works[/bold green]"
        + (" (models not called: --offline)" if offline else "")
    )
    return 0


def _attempt(what: str, problems: list[str], step: Callable[[], Any]) -> Any:
    """`step()`, or None with a one-line problem when it raises a configuration-type error."""
    try:
        return step()
    except (NL2SQLError, OSError, ValueError) as exc:
        problems.append(f"{what}: {safe_one_line(exc)}")
        return None


def _settings(file_config: FileConfig, problems: list[str]) -> Settings:
    """The effective settings; the defaults (and a problem) when the file's are invalid."""
    from nl2sql.settings import Settings, build_settings

    settings = _attempt("settings", problems, lambda: build_settings(file_config.settings))
    return settings if settings is not None else Settings.model_construct()


def _resolve(file_config: FileConfig, env: Mapping[str, str]) -> Any:
    from nl2sql.reasoning.llm.config import resolve_models
    from nl2sql.reasoning.registry import MODEL_NODES

    return resolve_models(MODEL_NODES, file_config.models, None, env)


def _check_project(file_config: FileConfig, settings: Settings, problems: list[str]) -> None:
    """What connect() and a run load besides models and sources: the project folder (written
    by every run), policies and hooks, and the curated answers (read on the first question)."""
    from nl2sql.governance.services import build_governance
    from nl2sql.settings import project_dir

    folder = project_dir(settings, file_config)
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is None or not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        problems.append(f"project folder: {folder} cannot be written (runs store results there)")
    governance = _attempt("policies", problems, lambda: build_governance(file_config, folder))
    if governance is not None and governance.curated is not None:
        _attempt("curated answers", problems, governance.curated.answers)


def _settings_table(file_config: FileConfig, settings: Settings, env: Mapping[str, str]) -> Any:
    from rich.table import Table

    table = Table("setting", "value", "from", title="settings")
    for name in type(settings).model_fields:
        var = f"NL2SQL_{name.upper()}"
        source = (
            f"env {var}"
            if var in env
            else ("file [settings]" if name in file_config.settings else "default")
        )
        table.add_row(name, escape(str(getattr(settings, name))), escape(source))
    return table


def _probe_key(config: ModelConfig) -> str:
    return config.model_dump_json(
        include={"model", "base_url", "timeout_s", "temperature", "options"}
    ) + ("key" if config.api_key else "")


def _probe_models(configs: Mapping[str, ModelConfig]) -> dict[str, Probe]:
    """One tiny call per distinct model (offline nodes need none)."""
    done: dict[str, Probe] = {}
    out: dict[str, Probe] = {}
    for node, config in configs.items():
        if config.is_offline:
            continue
        key = _probe_key(config)
        if key not in done:
            done[key] = probe_model(config)
        out[node] = done[key]
    return out


def probe_model(config: ModelConfig) -> Probe:
    """One structured call, as every node makes: the failure's code and message when the model
    cannot be reached or its answer is not the JSON asked for."""
    from langchain_core.messages import HumanMessage

    from nl2sql.reasoning.llm.errors import ModelCallError, redact
    from nl2sql.reasoning.llm.structured import StructuredCaller

    caller = StructuredCaller(config.model_copy(update={"max_retries": 0}))
    started = time.monotonic()
    try:
        caller.ask([HumanMessage(content=PROBE)], DoctorProbe, first=())
    except ModelCallError as exc:
        return Probe(False, f"{exc.code.value}: {exc.message}")
    except ConfigError as exc:
        return Probe(False, f"INVALID_CONFIG: {exc}")
    except Exception as exc:  # an SDK error we do not classify: shown, redacted
        secret = [config.api_key.get_secret_value()] if config.api_key else []
        return Probe(False, f"{type(exc).__name__}: {redact(safe_one_line(exc), secret)}")
    return Probe(True, f"answered JSON in {time.monotonic() - started:.1f}s")


def key_status(config: ModelConfig, env: Mapping[str, str]) -> str:
    """Where the model's key comes from (never its value)."""
    from nl2sql.reasoning.llm.chat import PROVIDER_ENV

    if config.is_offline:
        return "-"
    if config.api_key is not None:
        return "set (api_key in config)"
    var = PROVIDER_ENV.get(config.provider or "", (None, None))[0]
    if var is None:
        return "provider default"
    return f"set (env {var})" if env.get(var) else f"missing: set {var}"


def _models_table(
    configs: Mapping[str, ModelConfig],
    sources: Mapping[str, Mapping[str, str]],
    probes: Mapping[str, Probe],
    env: Mapping[str, str],
    offline: bool,
) -> Any:
    from rich.table import Table

    from nl2sql.reasoning.llm.chat import endpoint, structured_method

    table = Table(
        "node", "model", "from", "endpoint", "key", "options", "structured call", title="models"
    )
    for node, config in configs.items():
        origin = escape(sources.get(node, {}).get("model", "default"))
        if config.is_offline:
            table.add_row(node, "offline", origin, "-", "-", "-", "[green]built-in engine[/green]")
            continue
        opts = (
            f"timeout {config.timeout_s:g}s, retries {config.max_retries}, "
            f"parse_retries {config.parse_retries}, {structured_method(config)}"
        )
        probe = probes.get(node)
        status = (
            "skipped (--offline)"
            if offline or probe is None
            else (
                f"[green]{escape(probe.detail)}[/green]"
                if probe.ok
                else f"[red]{escape(probe.detail)}[/red]"
            )
        )
        table.add_row(
            node,
            escape(config.model),
            origin,
            escape(endpoint(config, dict(env))),
            escape(key_status(config, env)),
            opts,
            status,
        )
    return table


def _check_sources(file_config: FileConfig, settings: Settings) -> list[tuple[str, str, Probe]]:
    """(id, location, probe) per datasource: opened read-only and its schema read."""
    from nl2sql.datasources.factory import open_datasource
    from nl2sql.reasoning.llm.errors import redact

    if file_config.sources:
        specs = {sid: src.model_dump() for sid, src in file_config.sources.items()}
    else:  # as connect() does without a config file: the demo sources
        from nl2sql.demo import demo_sources, ensure_demo

        specs = dict(demo_sources(ensure_demo()))
    rows = []
    for sid, spec in specs.items():
        location = str(spec.get("url") or spec.get("path") or "")
        rows.append(
            (sid, redact(location), _probe_source(open_datasource, sid, location, settings))
        )
    return rows


def _probe_source(
    opener: Callable[..., DatasourceAdapter], sid: str, location: str, settings: Settings
) -> Probe:
    started = time.monotonic()
    try:
        adapter = opener(sid, location, timeout_s=settings.statement_timeout_s)
        try:
            snapshot = adapter.fetch_schema()
        finally:
            adapter.close()
    except (NL2SQLError, OSError, ValueError) as exc:
        return Probe(False, safe_one_line(exc))
    except Exception as exc:  # a driver error no adapter wrapped: one line, never a traceback
        return Probe(False, f"{type(exc).__name__}: {safe_one_line(exc)}")
    return Probe(
        True,
        f"{snapshot.dialect}, {len(snapshot.tables)} tables ({time.monotonic() - started:.1f}s)",
        snapshot,
    )


def _sources_table(rows: list[tuple[str, str, Probe]]) -> Any:
    from rich.table import Table

    table = Table("datasource", "location", "status", title="datasources")
    for sid, location, probe in rows:
        style = "green" if probe.ok else "red"
        table.add_row(escape(sid), escape(location), f"[{style}]{escape(probe.detail)}[/{style}]")
    return table
