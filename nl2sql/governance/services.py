"""The governance services a run uses: policies, hooks, curated answers, through the context.

The runtime context carries them in its `governance` field; nodes reach them with
`governance_of(ctx)`, which gives an empty Governance (no policy, no hooks, no curated answers)
when none is attached. `for_user` derives the context a run
of one user sees: its schema store filtered by that user's access (PolicySchemaView).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nl2sql.context import NL2SQLContext
from nl2sql.governance.curated import CuratedStore
from nl2sql.governance.hooks import HookRegistry
from nl2sql.schema.models import SchemaSnapshot
from nl2sql.security.rbac import UNRESTRICTED, Access, PolicySchemaView, PolicySet, UserContext
from nl2sql.settings import FileConfig

PROMOTED_CURATED = "curated.yaml"


@dataclass
class Governance:
    """A session's policies (None: no RBAC), hooks and curated answers (None: not configured)."""

    policies: PolicySet | None = None
    hooks: HookRegistry = field(default_factory=HookRegistry)
    curated: CuratedStore | None = None

    def access_for(self, user: UserContext | None) -> Access:
        """What `user` may read: everything without policies, else their roles' grants."""
        return UNRESTRICTED if self.policies is None else self.policies.access_for(user)

    def redact_samples(self, snapshot: SchemaSnapshot) -> SchemaSnapshot:
        """What a file may keep of `snapshot`: no sample values of a column a policy denies."""
        return snapshot if self.policies is None else self.policies.redact_samples(snapshot)

    @property
    def curated_configured(self) -> bool:
        return self.curated is not None and self.curated.configured


_EMPTY = Governance()


def governance_of(ctx: Any) -> Governance:
    return getattr(ctx, "governance", None) or _EMPTY


def access_of(ctx: Any, user: UserContext | None) -> Access:
    return governance_of(ctx).access_for(user)


def for_user(ctx: NL2SQLContext, user: UserContext | None) -> NL2SQLContext:
    """The context as `user` sees it: schemas filtered by their access when a policy exists."""
    access = access_of(ctx, user)
    if not access.restricted:
        return ctx
    return dataclasses.replace(ctx, schemas=PolicySchemaView(ctx.schemas, access))


def build_governance(config: FileConfig, folder: Path) -> Governance:
    """Policies, built-in hooks and curated answers as `config` declares them."""
    from nl2sql.governance.builtin_policies import builtin_hooks

    governance = Governance(policies=load_policies(config))
    for name, hook in builtin_hooks(config.policies):
        governance.hooks.add("execute.before", hook, name=name)
    files = [config.relative(config.curated.file)] if config.curated.file else []
    if files and not files[0].is_file():
        from nl2sql.errors import ConfigError

        raise ConfigError(f"curated answers file not found: {files[0]}")
    governance.curated = CuratedStore(
        files, folder / PROMOTED_CURATED, threshold=config.curated.threshold, index_path=folder / "chroma"
    )
    return governance


def load_policies(config: FileConfig) -> PolicySet | None:
    """The `[policies]` roles: from `file`, inline `roles`, or both (inline roles win)."""
    section = config.policies
    if not section.configured:
        return None
    roles: dict[str, Any] = {}
    if section.file:
        roles.update(PolicySet.load(config.relative(section.file)).roles)
    if section.roles:
        roles.update(PolicySet.parse({"roles": section.roles}, where="[policies.roles]").roles)
    return PolicySet(roles=roles)
