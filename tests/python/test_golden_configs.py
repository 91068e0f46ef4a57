"""The engine's golden configs (crates/engine/tests/golden/configs) are what the catalog produces.

If this fails after an intentional change of an experiment, rerun `python tests/golden_configs.py`
and then `DCCSIM_UPDATE_GOLDEN=1 cargo test --release -p dccsim-engine --test golden`.
"""

import pytest
from cli_helpers import load_script


@pytest.mark.engine
def test_stored_golden_configs_match_the_catalog(capsys):
    mod = load_script("tests/golden_configs.py", "golden_configs")
    assert mod.main(["--check"]) == 0, capsys.readouterr().out
