from __future__ import annotations

import pandas as pd

import nl2sql


def test_close_deletes_the_frames_copy(tmp_path):
    session = nl2sql.connect(frames={"sales": pd.DataFrame({"region": ["N", "S"], "amount": [1, 2]})},
                             settings={"project_dir": tmp_path / "p"})
    path = session.context.datasources["frames"].path
    assert path.exists()
    assert session.ask("How many sales are there?").table().column(0)[0].as_py() == 2
    session.close()
    assert not path.exists() and not path.parent.exists()
