"""The simulator's side alone of docs/testbed.md's older eBPF-law tables, rerun with the current engine:
the `--compare` matching as those tables were taken (the scenario's own link delays, no calibration;
DCTCP a step at K = 30 280 B, TBTCP the curve with the simulator's BDP), both testbed scenarios at
1 Gbps and 300 Mbps. Needs no root. Usage: python tools/testbed_simside_rerun.py OUT  (one JSON line
per run on stdout, all rows in OUT/rows.json)."""

import json
import sys
from pathlib import Path
from dccsim import compare
from dccsim.testbed import scenario as tbs
from dccsim.testbed import simside

out = Path(sys.argv[1])
rows = []
for scn_name, t0 in (("testbed-shared-4", None), ("testbed-incast-8", 10**12)):
    for rate in ("1Gbps", "300Mbps"):
        for alg in ("powertcp", "theta-powertcp", "dctcp", "tbtcp"):
            sc = tbs.load(scn_name, host_rate=rate)
            params = (
                {"ecn": {"ecn_kind": "step", "k_bytes": 30280}}
                if alg == "dctcp"
                else {"ecn": {"ecn_kind": "tbtcp", "pmax": 0.5}}
                if alg == "tbtcp"
                else {}
            )
            d = out / scn_name / rate / alg
            simside.run(sc, alg, params, d, quiet=True, calibrated=False)
            port = "sw0->h0" if "incast" in scn_name else None
            a = compare.analyse(d / alg, port, t0 or 0)
            summ = json.loads((d / "summary.json").read_text())
            eng = summ["runs"][alg]["engine"]
            rows.append(
                {
                    "scenario": scn_name,
                    "rate": rate,
                    "alg": alg,
                    "tau_us": eng["base_rtt_ps"] / 1e6,
                    "goodput_gbps": (a["long_window"] or {}).get("throughput_bps", 0) / 1e9,
                    "jain": a["jain"],
                    "q50": a["queue_p50"] / 1e3,
                    "q99": a["queue_p99"] / 1e3,
                    "qmax": a["queue_max"] / 1e3,
                    "peak": a["peak_queue_bytes"] / 1e3,
                    "recovery_ms": (a["recovery_time_ps"] or 0) / 1e9,
                    "fct50_ms": (a["short_fct_p50_ps"] or 0) / 1e9,
                    "fct99_ms": (a["short_fct_p99_ps"] or 0) / 1e9,
                    "drops": eng.get("packets_dropped"),
                    "retx": a["retransmits"],
                    "rto": a["timeouts"],
                }
            )
            print(json.dumps(rows[-1]), flush=True)
(out / "rows.json").write_text(json.dumps(rows, indent=1))
