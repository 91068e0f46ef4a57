"""The engine's golden configs (crates/engine/tests/golden/configs) are what the catalog produces.

If this fails after an intentional change of an experiment, rerun `python tests/golden_configs.py`
and then `DCCSIM_UPDATE_GOLDEN=1 cargo test --release -p dccsim-engine --test golden`.
"""

import importlib.util
from pathlib import Path

import pytest


@pytest.mark.engine
def test_stored_golden_configs_match_the_catalog(capsys):
    path = Path(__file__).resolve().parents[1] / "golden_configs.py"
    spec = importlib.util.spec_from_file_location("golden_configs", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--check"]) == 0, capsys.readouterr().out
