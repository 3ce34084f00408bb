"""The whole graph through a local OpenAI-compatible server with the real langchain-openai client:
demo questions answered correctly (a two-source one included), structured output by JSON schema
and by tool calls, parse-and-retry counts, and every provider failure mapped — also through the
`nl2sql ask --json` command with only environment variables, the key nowhere in the output."""

from __future__ import annotations

import json
import time

import pytest

import nl2sql
from nl2sql.cli.main import main
from nl2sql.decomposition import CombineGroup, CombineInput, DecomposerResponse, JoinKey, SubQuery
from nl2sql.demo import demo_sources
from nl2sql.demo.check import check
from nl2sql.demo.questions import DEMO_QUESTIONS
from nl2sql.errors import ErrorCode
from nl2sql.plan import (
    Aggregate,
    Between,
    ColumnRef,
    Comparison,
    Join,
    Literal_,
    OrderItem,
    PlanModel,
    SelectItem,
    TableRef,
)
from nl2sql.reasoning.base import (
    AnswerabilityResponse,
    AnswerSynthesizerResponse,
    ASTPlannerResponse,
)
from tests.reasoning.llm.openai_server import (
    OpenAIServer,
    Reply,
    api_error,
    completion,
    line_after,
    schema_name,
)

KEY = "sk-test-SECRET-0123456789abcdef"
COUNT_2024 = "How many orders were placed in 2024?"
CATEGORY = "What is the total quantity sold per product category?"
PRIORITY = "How many support tickets are there per priority?"
COMPARE = "For each region, compare the number of orders with the number of support tickets"
WEATHER = "What is the weather today?"


def _col(alias: str, name: str) -> ColumnRef:
    return ColumnRef(table=alias, name=name)


def _eq(a: ColumnRef, b: ColumnRef) -> Comparison:
    return Comparison(op="=", left=a, right=b)


def _count(alias: str) -> SelectItem:
    return SelectItem(expr=Aggregate(func="count"), alias=alias)


PLANS: dict[str, PlanModel] = {
    "number of orders placed in 2024": PlanModel(
        tables=[TableRef(name="orders", alias="o")],
        select=[_count("orders")],
        where=Between(
            expr=_col("o", "order_date"),
            low=Literal_(value="2024-01-01"),
            high=Literal_(value="2024-12-31"),
        ),
    ),
    "total quantity sold per product category": PlanModel(
        tables=[TableRef(name="order_items", alias="oi"), TableRef(name="products", alias="p")],
        joins=[Join(alias="p", on=_eq(_col("oi", "product_id"), _col("p", "product_id")))],
        select=[
            SelectItem(expr=_col("p", "category"), alias="category"),
            SelectItem(
                expr=Aggregate(func="sum", arg=_col("oi", "quantity")), alias="total_quantity"
            ),
        ],
        group_by=[_col("p", "category")],
        order_by=[OrderItem(expr=ColumnRef(name="total_quantity"), direction="desc")],
    ),
    "number of support tickets per priority": PlanModel(
        tables=[TableRef(name="support_tickets", alias="t")],
        select=[SelectItem(expr=_col("t", "priority"), alias="priority"), _count("tickets")],
        group_by=[_col("t", "priority")],
    ),
    "number of orders per region": PlanModel(
        tables=[
            TableRef(name="orders", alias="o"),
            TableRef(name="customers", alias="c"),
            TableRef(name="regions", alias="r"),
        ],
        joins=[
            Join(alias="c", on=_eq(_col("o", "customer_id"), _col("c", "customer_id"))),
            Join(alias="r", on=_eq(_col("c", "region_id"), _col("r", "region_id"))),
        ],
        select=[SelectItem(expr=_col("r", "region_name"), alias="region"), _count("orders")],
        group_by=[_col("r", "region_name")],
    ),
    "number of support tickets per region": PlanModel(
        tables=[TableRef(name="support_tickets", alias="t"), TableRef(name="accounts", alias="a")],
        joins=[Join(alias="a", on=_eq(_col("t", "account_id"), _col("a", "account_id")))],
        select=[SelectItem(expr=_col("a", "region"), alias="region"), _count("tickets")],
        group_by=[_col("a", "region")],
    ),
}


def _single(ds: str, intent: str, columns: list[str]) -> DecomposerResponse:
    return DecomposerResponse(
        sub_queries=[SubQuery(id="q1", datasource_id=ds, intent=intent, expected_schema=columns)],
        combine_groups=[
            CombineGroup(
                group_id="g1", operation="standalone", inputs=[CombineInput(subquery_id="q1")]
            )
        ],
        reasoning=f"one sub-query on {ds}",
    )


COMPARE_SPLIT = DecomposerResponse(
    sub_queries=[
        SubQuery(
            id="q1",
            datasource_id="warehouse",
            intent="number of orders per region",
            expected_schema=["region", "orders"],
        ),
        SubQuery(
            id="q2",
            datasource_id="crm",
            intent="number of support tickets per region",
            expected_schema=["region", "tickets"],
        ),
    ],
    combine_groups=[
        CombineGroup(
            group_id="g1",
            operation="compare",
            join_keys=[JoinKey(left="region", right="region")],
            inputs=[
                CombineInput(subquery_id="q1", role="orders"),
                CombineInput(subquery_id="q2", role="tickets"),
            ],
        )
    ],
    reasoning="orders are in the warehouse, tickets in the CRM; compare them by region",
)

# question -> (datasources that answer, decomposition, scripted answer)
SCRIPT = {
    COUNT_2024: (
        ["warehouse"],
        _single("warehouse", "number of orders placed in 2024", ["orders"]),
        "16,800 orders were placed in 2024.",
    ),
    CATEGORY: (
        ["warehouse"],
        _single(
            "warehouse", "total quantity sold per product category", ["category", "total_quantity"]
        ),
        "Electronics sold the most units.",
    ),
    PRIORITY: (
        ["crm"],
        _single("crm", "number of support tickets per priority", ["priority", "tickets"]),
        "Most tickets have medium priority.",
    ),
    COMPARE: (["warehouse", "crm"], COMPARE_SPLIT, "Every region has more orders than tickets."),
}


class DemoModel:
    """Plays the model: answers each node's request with the scripted JSON for its question."""

    def __init__(self, overrides: dict[str, object] | None = None):
        self.overrides = dict(overrides or {})  # schema name -> Reply or callable(request)

    def __call__(self, request: dict) -> Reply:
        name = schema_name(request)
        if name is None:  # a plain call
            return completion(request, "OK", usage=(12, 1))
        if name == "DoctorProbe":  # `nl2sql doctor`'s structured call
            return completion(request, {"reply": "OK"}, usage=(12, 4))
        override = self.overrides.get(name)
        if override is not None:
            return override(request) if callable(override) else override
        if name == "ASTPlannerResponse":
            plan = PLANS[line_after(request, "Sub-query to plan:")]
            return completion(
                request,
                ASTPlannerResponse(plan=plan, reasoning="scripted plan").model_dump(mode="json"),
            )
        question = line_after(request, "Question:")
        if name == "AnswerabilityResponse":
            ids = SCRIPT[question][0] if question in SCRIPT else []
            verdict = AnswerabilityResponse(
                answerable=bool(ids),
                datasource_ids=ids,
                confidence=0.9,
                reason="the tables hold it" if ids else "no table holds weather data",
            )
            return completion(request, verdict.model_dump(mode="json"))
        if name == "DecomposerResponse":
            return completion(request, SCRIPT[question][1].model_dump(mode="json"))
        if name == "AnswerSynthesizerResponse":
            return completion(
                request,
                AnswerSynthesizerResponse(answer=SCRIPT[question][2]).model_dump(mode="json"),
            )
        return api_error(400, f"unexpected request for {name}")


@pytest.fixture(scope="module")
def server():
    with OpenAIServer(DemoModel()) as srv:
        yield srv


@pytest.fixture
def model(server):
    """The server's model for one test: scripted per test, request log cleared."""
    server.handler = DemoModel()
    server.requests.clear()
    server.headers.clear()
    return server


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return tmp_path_factory.mktemp("project")


def _connect(demo_paths, project, server, **options):
    models = {"default": "openai:demo-model", "base_url": server.url, "api_key": KEY, **options}
    return nl2sql.connect(
        sources=demo_sources(demo_paths), models=models, settings={"project_dir": project}
    )


@pytest.fixture(scope="module")
def session(demo_paths, project, server):
    with _connect(demo_paths, project, server) as s:
        yield s


def _names(server) -> list[str | None]:
    return [schema_name(r) for r in server.requests]


@pytest.mark.parametrize("question", [COUNT_2024, CATEGORY, PRIORITY, COMPARE])
def test_demo_questions_are_answered_correctly_through_the_server(session, model, question):
    result = session.ask(question)
    item = next(q for q in DEMO_QUESTIONS if q.question == question)
    ok, why = check(session, item, result)
    assert ok, f"{why}; errors={[e.one_line() for e in result.errors]}; sql={result.sql}"
    assert result.answer == SCRIPT[question][2]
    scans = len(SCRIPT[question][1].sub_queries)
    assert result.usage["total"] == {
        "input_tokens": 120 * (3 + scans),
        "output_tokens": 30 * (3 + scans),
        "calls": 3 + scans,
    }
    assert all(r["response_format"]["type"] == "json_schema" for r in model.requests)
    assert all(
        h.get("authorization") == f"Bearer {KEY}" or h.get("Authorization") == f"Bearer {KEY}"
        for h in model.headers
    )


def test_the_two_source_question_combines_both_scans(session, model):
    result = session.ask(COMPARE)
    assert {o.sub_query.datasource_id for o in result.sub_queries} == {"warehouse", "crm"}
    combined = result.to_pandas()
    assert len(combined) == 5 and any(c.endswith("_diff") for c in combined.columns)
    synth = next(r for r in model.requests if schema_name(r) == "AnswerSynthesizerResponse")
    assert "The results combine several data sources (compare)" in synth["messages"][1]["content"]


def test_a_refused_question_ends_after_one_model_call(session, model):
    result = session.ask(WEATHER)
    assert result.status == "not_answerable"
    assert _names(model) == ["AnswerabilityResponse"]
    assert result.errors[0].error_code == ErrorCode.QUESTION_NOT_ANSWERABLE


def test_tool_calls_work_end_to_end(demo_paths, project, model):
    with _connect(demo_paths, project, model, structured_output="function_calling") as s:
        result = s.ask(COUNT_2024)
    assert result.status == "success" and result.answer == SCRIPT[COUNT_2024][2]
    assert all(r["tools"][0]["function"]["name"] == schema_name(r) for r in model.requests)
    assert all("response_format" not in r for r in model.requests)


def test_malformed_json_is_asked_again_and_the_raw_answer_kept(session, model):
    replies = iter(['{"answerable": tru', None])

    def flaky(request):
        text = next(replies)
        return completion(request, text) if text else DemoModel()(request)

    model.handler = DemoModel({"AnswerabilityResponse": flaky})
    result = session.ask(COUNT_2024)
    assert result.status == "success"
    assert _names(model).count("AnswerabilityResponse") == 2
    entry = next(e for e in result.reasoning if e["node"] == "datasource_resolver")
    assert entry["raw_output"][0] == '{"answerable": tru' and len(entry["parse_errors"]) == 1
    reask = model.requests[1]["messages"][-1]["content"]
    assert "could not be used" in reask and '{"answerable": tru' in reask


def test_a_schema_the_model_never_meets_ends_as_model_output_invalid(session, model):
    bad = {
        "reasoning": "x",
        "plan": {
            "tables": [{"name": "orders", "alias": "o"}],
            "select": [{"expr": {"kind": "col", "name": "order_id"}}],
        },
    }
    model.handler = DemoModel({"ASTPlannerResponse": lambda r: completion(r, bad)})
    result = session.ask(COUNT_2024)
    assert result.status == "error"
    planner_errors = [e for e in result.errors if e.node == "ast_planner"]
    assert [e.error_code for e in planner_errors] == [ErrorCode.MODEL_OUTPUT_INVALID]
    assert (
        _names(model).count("ASTPlannerResponse") == 3
    )  # parse_retries (2) + 1, no SQL-agent retry


def test_a_body_that_is_not_json_is_an_unavailable_provider(session, model):
    model.handler = DemoModel({"AnswerabilityResponse": Reply(body="<html>bad gateway")})
    result = session.ask(COUNT_2024)
    assert [e.error_code for e in result.errors] == [ErrorCode.PROVIDER_UNAVAILABLE]


BAD_REPLIES = {
    "500": (
        api_error(
            500, "The server had an error", type_="server_error", headers={"retry-after": "0"}
        ),
        "(HTTP 500): the model server at {url} answered with a server error "
        "(The server had an error): retry later",
    ),
    "502-html": (
        Reply(
            status=502, body="<html><body>Bad gateway</body></html>", headers={"retry-after": "0"}
        ),
        "(HTTP 502): the model server at {url} answered with a server error: retry later",
    ),
    "200-html": (
        Reply(body="<!doctype html><html>login page</html>"),
        "the model server at {url} answered, but not with a chat completion (an HTML page)",
    ),
    "200-malformed-json": (
        Reply(body='{"id": "chatcmpl-local", "choices": [ '),
        "the model server at {url} answered, but not with a chat completion (malformed JSON)",
    ),
    "200-no-choices": (
        Reply(body={"id": "chatcmpl-local", "object": "chat.completion"}),
        "the model server at {url} answered, but not with a chat completion (TypeError",
    ),
}


@pytest.mark.parametrize("case", list(BAD_REPLIES))
def test_a_bad_reply_says_what_the_server_answered(session, model, case):
    reply, expected = BAD_REPLIES[case]
    model.handler = DemoModel({"AnswerabilityResponse": reply})
    result = session.ask(COUNT_2024)
    assert [e.error_code for e in result.errors] == [ErrorCode.PROVIDER_UNAVAILABLE]
    message = result.errors[0].message
    assert expected.format(url=model.url) in message, message
    assert "\n" not in message and "cannot be reached" not in message
    assert "Traceback" not in message and "check that it is running" not in message
    if case.startswith("200"):  # a reply that is not a chat completion is not re-sent
        assert len(model.requests) == 1


FAILURES = {
    "401": (
        api_error(401, "Incorrect API key provided: sk-test-********cdef.", code="invalid_api_key"),
        ErrorCode.PROVIDER_AUTH,
    ),
    "404": (
        api_error(404, "The model `demo-model` does not exist", code="model_not_found"),
        ErrorCode.PROVIDER_MODEL_NOT_FOUND,
    ),
    "429": (
        api_error(429, "Rate limit reached", type_="requests", headers={"retry-after": "0"}),
        ErrorCode.PROVIDER_RATE_LIMIT,
    ),
    "429-quota": (
        api_error(
            429,
            "You exceeded your current quota",
            type_="insufficient_quota",
            code="insufficient_quota",
        ),
        ErrorCode.PROVIDER_QUOTA,
    ),
    "500": (
        api_error(
            500, "The server had an error", type_="server_error", headers={"retry-after": "0"}
        ),
        ErrorCode.PROVIDER_UNAVAILABLE,
    ),
    "hang": (Reply(delay_s=600), ErrorCode.PROVIDER_TIMEOUT),
}


@pytest.fixture
def cli_env(monkeypatch, project, model):
    """Only environment variables configure the model, as an analyst's shell would."""
    monkeypatch.chdir(project)
    monkeypatch.setenv("NL2SQL_MODEL", "openai:demo-model")
    monkeypatch.setenv("OPENAI_BASE_URL", model.url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    # Generous: a loaded machine must not turn a 401 into a timeout. The hang case lowers it.
    monkeypatch.setenv("NL2SQL_MODEL_TIMEOUT_S", "20")
    return model


@pytest.mark.parametrize("case", list(FAILURES))
def test_cli_ask_maps_each_provider_failure_and_never_prints_the_key(
    cli_env, capsys, monkeypatch, case
):
    reply, code = FAILURES[case]
    if case == "hang":
        monkeypatch.setenv("NL2SQL_MODEL_TIMEOUT_S", "3")
    cli_env.handler = lambda request: reply
    started = time.monotonic()
    exit_code = main(["ask", COUNT_2024, "--json"])
    elapsed = time.monotonic() - started
    out, err = capsys.readouterr()
    assert exit_code == 1
    payload = json.loads(out)
    assert [e["error_code"] for e in payload["errors"]] == [code.value]
    assert payload["errors"][0]["node"] == "datasource_resolver"
    for text in (out, err):
        assert KEY not in text and "cdef" not in text and "SECRET" not in text
    expected_calls = (
        3 if code in (ErrorCode.PROVIDER_RATE_LIMIT, ErrorCode.PROVIDER_UNAVAILABLE) else 1
    )
    assert len(cli_env.requests) == expected_calls  # max_retries (2) re-sends for 429/5xx only
    if case == "hang":
        assert elapsed < 45  # the 3 s model timeout, not the 60 s run timeout (nor the hang)


def test_cli_hang_ends_as_provider_timeout_within_the_run_timeout(cli_env, capsys, monkeypatch):
    # The model would wait 300 s for a server that hangs 600 s: only the run's 4 s timeout can
    # end this early, so the bound below is generous and still tells the two apart.
    monkeypatch.setenv("NL2SQL_MODEL_TIMEOUT_S", "300")
    cli_env.handler = lambda request: Reply(delay_s=600)
    started = time.monotonic()
    exit_code = main(["ask", COUNT_2024, "--json", "--timeout", "4"])
    elapsed = time.monotonic() - started
    payload = json.loads(capsys.readouterr().out)
    codes = [e["error_code"] for e in payload["errors"]]
    assert exit_code == 1 and elapsed < 90, elapsed
    # The call gives up half a second before the run's deadline; on a loaded machine the run's
    # own timeout may be recorded too, or alone when the 4 s ran out before the model was
    # called: a timeout either way, nothing else, and never a re-send.
    assert "PROVIDER_TIMEOUT" in codes or codes == ["PIPELINE_TIMEOUT"], codes
    assert set(codes) <= {"PROVIDER_TIMEOUT", "PIPELINE_TIMEOUT"}, codes
    assert len(cli_env.requests) <= 1


def test_cli_prints_model_usage(cli_env, capsys):
    exit_code = main(["ask", PRIORITY])
    out = " ".join(capsys.readouterr().out.split())  # the terminal width may wrap the line
    assert exit_code == 0
    assert "model usage: 4 call(s), 480 input + 120 output tokens" in out
    assert "ast_planner 1×/150 tok" in out


@pytest.fixture
def doctor_config(tmp_path, monkeypatch, model, demo_paths):
    """A config file: the demo CRM, a missing database, and models on the local server."""
    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.setenv("DOCTOR_TEST_KEY", KEY)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    path = tmp_path / "nl2sql.toml"
    path.write_text(
        f'[sources.crm]\npath = "{demo_paths.crm}"\n\n'
        f"[settings]\nrow_cap = 500\n\n"
        f'[models]\ndefault = "openai:demo-model"\nbase_url = "{model.url}"\napi_key = "${{DOCTOR_TEST_KEY}}"\n'
        f'answer_synthesizer = "offline"\n',
        encoding="utf-8",
    )
    return path


def test_doctor_shows_where_settings_come_from_and_calls_each_model_once(
    doctor_config, model, capsys
):
    exit_code = main(["doctor", "--config", str(doctor_config)])
    out = capsys.readouterr().out
    assert exit_code == 0, out
    assert "row_cap" in out and "file [settings]" in out and "statement_timeout_s" in out
    assert (
        "openai:demo-model" in out
        and "file [models].default" in out
        and "set (api_key in config)" in out
    )
    assert "built-in engine" in out and "answered JSON in" in out and "crm" in out
    assert "3 tables" in out
    assert len(model.requests) == 1  # four nodes share one model: one probe
    assert schema_name(model.requests[0]) == "DoctorProbe"  # a structured call, as nodes make
    assert KEY not in out


def test_doctor_fails_a_model_whose_replies_are_not_json(doctor_config, model, capsys):
    model.handler = lambda request: completion(request, "Sure, OK!")
    exit_code = main(["doctor", "--config", str(doctor_config)])
    out = capsys.readouterr().out
    assert exit_code == 1, out
    problems = [line for line in out.splitlines() if line.startswith("✗")]
    assert len(problems) == 1 and "MODEL_OUTPUT_INVALID" in problems[0], out
    assert "answerability" in problems[0] and "1 problem(s) found" in out


def test_doctor_fails_a_server_that_is_not_a_chat_api(doctor_config, model, capsys):
    model.handler = lambda request: Reply(body="<html>welcome</html>")
    assert main(["doctor", "--config", str(doctor_config)]) == 1
    out = capsys.readouterr().out
    assert "PROVIDER_UNAVAILABLE" in out and "HTML page" in out


def test_doctor_reports_a_rejected_key_and_a_missing_database(doctor_config, model, capsys):
    model.handler = lambda request: api_error(
        401, f"Incorrect API key provided: {KEY[:7]}***{KEY[-4:]}"
    )
    with doctor_config.open("a", encoding="utf-8") as f:
        f.write(f'\n[sources.gone]\npath = "{doctor_config.parent / "missing.sqlite"}"\n')
    exit_code = main(["doctor", "--config", str(doctor_config)])
    out = capsys.readouterr().out
    assert exit_code == 1
    assert "PROVIDER_AUTH" in out and "gone" in out and "2 problem(s) found" in out
    assert KEY not in out and KEY[-4:] not in out


def test_doctor_offline_calls_no_model(doctor_config, model, capsys):
    assert main(["doctor", "--config", str(doctor_config), "--offline"]) == 0
    assert model.requests == [] and "skipped (--offline)" in capsys.readouterr().out


def test_cli_error_text_says_what_to_fix(cli_env, capsys):
    cli_env.handler = lambda request: FAILURES["401"][0]
    assert main(["ask", COUNT_2024]) == 1
    out = capsys.readouterr().out
    assert "PROVIDER_AUTH" in out and "OPENAI_API_KEY (or api_key in [models])" in " ".join(
        out.split()
    )
    assert KEY not in out
