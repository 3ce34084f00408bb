"""pytest --nbval on the tutorials, with pytest-xdist.

nbval runs a notebook's cells one after another in one kernel, so every cell of a notebook must go
to the same xdist worker. xdist's default `load` scheduling spreads single items over workers;
when it is in force (`-n N` without `--dist`), it becomes `loadfile` — one notebook per worker —
which keeps ordinary test files balanced the same way.
"""

from __future__ import annotations

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if getattr(config.option, "nbval", False) and getattr(config.option, "dist", "no") == "load":
        config.option.dist = "loadfile"
