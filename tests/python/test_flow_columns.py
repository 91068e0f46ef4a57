"""One definition of the flow record for the simulator and the testbed (issue 29): the engine's schema.

The testbed once kept its own list of 14 flow columns; when the engine gained two, every testbed
run's `shared` metrics failed ("All arrays must be of the same length") because a missing column
came back as an empty array. Now the testbed's columns are derived from the engine's, and a table
with rows that lacks a column is an error."""

from __future__ import annotations

import numpy as np
import pytest

from dccsim import results
from dccsim.testbed import results as tb_results
from dccsim.testbed.runner import flow_record
from dccsim.testbed.scenario import load

pytestmark = pytest.mark.engine  # the schema is the engine's


def _record(sc, k=0):
    info = {"min_rtt_us": 120, "snd_mss": 1448, "total_retrans": 3, "total_rto": 1, "data_segs_out": 90}
    return flow_record(sc, sc.flows[0], k, k, info, {}, acked=1000, conn=1000)


def test_the_testbed_record_is_the_engine_record_less_what_it_cannot_measure():
    sc = load("testbed-shared-4")
    rec = _record(sc)
    engine_cols = results.engine_columns("flows")
    assert set(tb_results.NOT_MEASURED) <= set(engine_cols)  # no stale exemption
    # a column the engine gains fails here until the testbed measures it or lists it in NOT_MEASURED
    assert {c for c in rec if not c.startswith("_")} == set(tb_results.flow_columns())
    assert set(tb_results.flow_columns()) | set(tb_results.NOT_MEASURED) == set(engine_cols)


def test_the_testbed_flows_table_has_every_engine_column_at_full_length():
    sc = load("testbed-incast-8")
    recs = [_record(sc, k) for k in range(3)]
    table = tb_results.flows_table(recs)
    assert tuple(table) == results.engine_columns("flows")
    assert {len(v) for v in table.values()} == {3}
    assert table["ideal_fct_artifact_ps"] == [-1, -1, -1]  # not applicable, as documented
    typed = results.typed_columns("flows", results.with_slowdown(table))
    assert {len(v) for v in typed.values()} == {3}


def test_a_record_lacking_a_measured_column_is_an_error_naming_it():
    sc = load("testbed-shared-4")
    rec = _record(sc)
    del rec["retransmits"]
    with pytest.raises(results.MissingColumns, match="retransmits"):
        tb_results.flows_table([rec])


def test_a_table_with_rows_lacking_a_column_is_an_error_never_an_empty_array():
    cols = {c: np.zeros(2, dtype=np.int64) for c in results.engine_columns("flows")}
    del cols["suppressions"]
    with pytest.raises(results.MissingColumns, match="flows: no column suppressions"):
        results.typed_columns("flows", results.with_slowdown(cols))
    # a table the producer did not write (no rows): every column, empty
    empty = results.typed_columns("pfc", {})
    assert [c for c, _ in results.table_columns()["pfc"]] == list(empty)
    assert all(len(v) == 0 for v in empty.values())
    # an older producer's file: the column it lacks is filled as not applicable, at full length
    filled = results.typed_columns("flows", results.with_not_applicable("flows", results.with_slowdown(cols)))
    assert list(filled["suppressions"]) == [-1, -1]
