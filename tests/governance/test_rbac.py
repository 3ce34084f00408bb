"""Role policies: deny by default, union of roles, filtered snapshots, denied names."""

from __future__ import annotations

import pytest

from nl2sql.errors import ConfigError
from nl2sql.security.rbac import (
    UNRESTRICTED,
    PolicySchemaView,
    PolicySet,
    UserContext,
    raw_snapshot,
)

POLICY = {
    "roles": {
        "analyst": {"datasources": {"shop": {"tables": ["orders", "customers"],
                                             "columns": {"customers": ["customer_id", "state"]}}}},
        "support": {"datasources": {"shop": {"tables": ["customers"]}}},
        "auditor": {"datasources": ["shop"]},
    }
}


def access(*roles: str):
    return PolicySet.parse(POLICY).access_for(UserContext(roles=roles))


def test_without_a_policy_everything_is_allowed(shop):
    assert UNRESTRICTED.allows_datasource("anything")
    assert UNRESTRICTED.filter(shop) is shop
    assert UNRESTRICTED.allowed_tables(shop) is None


def test_a_user_without_a_granting_role_can_read_nothing(shop):
    nobody = access("guest")
    assert not nobody.allows_datasource("shop")
    assert nobody.filter(shop).tables == []
    assert access().allowed_tables(shop) == []


def test_a_role_sees_only_its_tables_and_columns(shop):
    seen = access("analyst").filter(shop)
    assert [t.key for t in seen.tables] == ["customers", "orders"]
    assert [c.name for c in seen.table("customers").columns] == ["customer_id", "state"]
    assert "salaries" not in seen.model_dump_json() and "email" not in seen.model_dump_json()


def test_roles_add_up_and_an_unrestricted_grant_wins_over_a_column_list(shop):
    both = access("analyst", "support")
    assert both.allowed_columns(shop) == {}  # support reads every column of customers
    assert [c.name for c in both.filter(shop).table("customers").columns] == ["customer_id", "name", "email", "state"]


def test_a_datasource_listed_by_name_grants_everything_in_it(shop):
    assert access("auditor").filter(shop) == shop


def test_foreign_keys_to_hidden_tables_are_dropped(shop):
    policy = PolicySet.parse({"roles": {"r": {"datasources": {"shop": {"tables": ["orders"]}}}}})
    seen = policy.access_for(UserContext(roles=("r",))).filter(shop)
    assert seen.table("orders").foreign_keys == []


def test_denied_names_tables_and_columns_outside_the_grant(shop):
    denied = access("analyst").denied("shop", shop, {"orders", "salaries"},
                                      {("customers", "email"), ("customers", "state")})
    assert denied == ["salaries", "customers.email"]
    assert access("analyst").denied("crm", shop, {"orders"}, set()) == ["crm"]


def test_the_schema_view_filters_every_snapshot_and_keeps_the_original(shop):
    class Store:
        def get(self, ds):
            return shop

    view = PolicySchemaView(Store(), access("analyst"))
    assert [t.key for t in view.get("shop").tables] == ["customers", "orders"]
    assert raw_snapshot(view, "shop") is shop
    assert raw_snapshot(Store(), "shop") is shop


def test_policy_files_are_validated_with_the_place_of_the_mistake(tmp_path):
    bad = tmp_path / "policies.yaml"
    bad.write_text("roles:\n  analyst:\n    datasource: [shop]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="policies.yaml: roles.analyst.datasource"):
        PolicySet.load(bad)
    with pytest.raises(ConfigError, match="not found"):
        PolicySet.load(tmp_path / "missing.yaml")
