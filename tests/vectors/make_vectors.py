#!/usr/bin/env python3
"""Shared congestion-control test vectors: tests/vectors/cc_vectors.json.

A small floating-point reference of the control laws as the papers write them (PowerTCP Alg. 1,
theta-PowerTCP Alg. 2, DCTCP RFC 8257, TBTCP QCD/RAI) runs each case's event sequence and records the
expected window after every step.  The laws' fixed-point C (bpf/laws/*.bpf.c, the plugins the
testbed runs) and the simulator's native controllers are tested against these numbers
(crates/engine/tests/vectors.rs).  The
format is documented in docs/testbed.md ("Test vectors").  Run: python3 tests/vectors/make_vectors.py
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

OUT = Path(__file__).with_name("cc_vectors.json")
TOLERANCE = {
    # fixed point: 2^-20 for dimensionless factors, 2^-10 byte windows, integer-byte BDPs; the worst
    # case over a vector is ~1e-4 relative, so 1e-3 leaves margin but still catches a wrong law
    "cwnd_rel": 1e-3,
    "cwnd_abs_bytes": 1.0,
    "power_rel": 1e-3,
    "power_abs": 1e-5,
    "alpha_abs": 1e-4,
}


def seq_ge(a: int, b: int) -> bool:
    return a >= b


# ------------------------------------------------------------------ PowerTCP family
class Power:
    def __init__(self, p: dict, snd_nxt: int):
        self.p = p
        self.cwnd = float(p["host_bdp_bytes"])
        self.cwnd_old = self.cwnd
        self.last_nxt = snd_nxt
        self.smooth = 1.0
        self.prev = None  # INT hops of the previous ACK
        self.prev_rtt = None  # theta
        self.prev_t = None

    def _smooth_and_window(self, gamma_norm: float, dt: float, cwnd_old: float):
        p = self.p
        tau = p["tau_s"]
        gamma_norm = max(gamma_norm, p["power_floor"])
        dt = min(dt, tau)
        self.smooth = (self.smooth * (tau - dt) + gamma_norm * dt) / tau
        self.smooth = max(self.smooth, p["power_floor"])
        w = p["gamma"] * (cwnd_old / self.smooth + p["beta_bytes"]) + (1 - p["gamma"]) * self.cwnd
        self.cwnd = min(max(w, p["mss_bytes"]), p["host_bdp_bytes"])

    def powertcp(self, una: int, nxt: int, hops: list[dict]) -> bool:
        tau = self.p["tau_s"]
        best = None
        if self.prev is not None and len(self.prev) == len(hops):
            for h, q in zip(hops, self.prev):
                dt = h["ts_s"] - q["ts_s"]
                if dt <= 0:
                    continue
                qdot = (h["qlen_bytes"] - q["qlen_bytes"]) / dt
                mu = (h["tx_bytes"] - q["tx_bytes"]) / dt
                lam = max(qdot + mu, 0.0)  # bytes/s
                b = h["rate_bps"] / 8  # bytes/s
                nu = h["qlen_bytes"] + b * tau  # bytes
                g = lam * nu / (b * b * tau)
                if best is None or g > best[0]:
                    best = (g, dt)
        self.prev = hops
        if best is None:
            return False
        self._smooth_and_window(best[0], best[1], self.cwnd_old)
        if seq_ge(una, self.last_nxt):
            self.cwnd_old = self.cwnd
            self.last_nxt = nxt
        return True

    def theta(self, una: int, nxt: int, now: float, rtt: float) -> bool:
        if self.prev_rtt is None:
            self.prev_rtt, self.prev_t, self.last_nxt = rtt, now, nxt
            return False
        if not seq_ge(una, self.last_nxt):
            return False
        dt = now - self.prev_t
        if dt <= 0:
            return False
        g1 = max(0.0, 1.0 + (rtt - self.prev_rtt) / dt)
        self._smooth_and_window(g1 * rtt / self.p["tau_s"], dt, self.cwnd)
        self.prev_rtt, self.prev_t, self.last_nxt = rtt, now, nxt
        return True


# ------------------------------------------------------------------ DCTCP
class Dctcp:
    def __init__(self, p: dict, cwnd: float, una: int, nxt: int):
        self.p = p
        self.cwnd = float(cwnd)
        self.ssthresh = math.inf
        self.alpha = 1.0
        self.win_end = nxt
        self.cut_end = una
        self.acked = 0
        self.marked = 0

    def ack(self, una: int, nxt: int, acked: int, ece: bool):
        p = self.p
        self.acked += acked
        if ece:
            self.marked += acked
        if seq_ge(una, self.win_end):
            f = self.marked / self.acked if self.acked else 0.0
            self.alpha = (1 - p["g"]) * self.alpha + p["g"] * f
            self.acked = self.marked = 0
            self.win_end = nxt
        if ece:
            if seq_ge(una, self.cut_end):
                self.cwnd = max(self.cwnd * (1 - self.alpha / 2), p["min_cwnd_bytes"])
                self.ssthresh = self.cwnd
                self.cut_end = nxt
            return
        if self.cwnd < self.ssthresh:
            self.cwnd += acked
        else:
            self.cwnd += p["mss_bytes"] * acked / self.cwnd


# ------------------------------------------------------------------ TBTCP
class Tbtcp:
    def __init__(self, p: dict, cwnd: float, nxt: int):
        self.p = p
        self.cwnd = float(cwnd)
        self.round_floor = self.cwnd / 2
        self.round_end = nxt
        self.in_ss = True

    def ack(self, una: int, nxt: int, acked: int, marked: int):
        p = self.p
        if seq_ge(una, self.round_end):
            self.round_end = nxt
            self.round_floor = self.cwnd / 2
        if marked:
            self.in_ss = False
            cut = p["scale"] * p["mss_bytes"] * marked
            floor = max(self.round_floor, p["min_cwnd_bytes"])
            self.cwnd = self.cwnd - cut if self.cwnd > floor + cut else min(self.cwnd, floor)
            self.cwnd = max(self.cwnd, p["min_cwnd_bytes"])
            return
        if self.in_ss:
            self.cwnd += acked
        else:
            self.cwnd += p["alpha"] * p["mss_bytes"] * acked / self.cwnd


# ------------------------------------------------------------------ cases
MSS = 1448


def power_params(rate_bps: int, tau_ns: int, n_expected: int = 10, gamma: float = 0.9) -> dict:
    bdp = rate_bps // 1000 * tau_ns // 8_000_000
    return {
        "mss_bytes": MSS,
        "tau_s": tau_ns / 1e9,
        "host_bdp_bytes": bdp,
        "beta_bytes": bdp // n_expected,
        "gamma": gamma,
        "power_floor": 0.01,
    }


def powertcp_case(name, params, snd_nxt, hop_seq, acks_per_rtt=8, note=""):
    """hop_seq: list of per-ACK hop lists with integer ns timestamps (converted to seconds here)."""
    st = Power(params, snd_nxt)
    steps = []
    una, nxt = snd_nxt - int(params["host_bdp_bytes"]), snd_nxt
    for hops in hop_seq:
        una += MSS
        nxt += MSS
        hs = [
            {"qlen_bytes": h["q"], "tx_bytes": h["tx"], "ts_s": h["ts_ns"] / 1e9, "rate_bps": h["rate"]}
            for h in hops
        ]
        upd = st.powertcp(una, nxt, hs)
        steps.append(
            {
                "una": una,
                "nxt": nxt,
                "hops": hs,
                "updated": upd,
                "expect_cwnd_bytes": st.cwnd,
                "expect_smoothed_power": st.smooth,
            }
        )
    return {
        "name": name,
        "note": note,
        "params": params,
        "init": {"cwnd_bytes": params["host_bdp_bytes"], "snd_nxt": snd_nxt, "smoothed_power": 1.0},
        "steps": steps,
    }


def link_trace(rate, t0_ns, tx0, q0, n, dt_ns, arrival_factor, q_cap=None):
    """A bottleneck whose arrivals run at arrival_factor x line rate (queue grows / drains)."""
    out = []
    t, tx, q = t0_ns, tx0, q0
    for _ in range(n):
        t += dt_ns
        served = rate / 8 * dt_ns / 1e9
        arrived = arrival_factor * served
        q_new = max(0.0, q + arrived - served)
        if q_new == 0.0:
            served = q + arrived
        if q_cap is not None:
            q_new = min(q_new, q_cap)
        tx += int(served)
        q = q_new
        out.append({"q": int(q), "tx": tx, "ts_ns": t, "rate": rate})
    return out


def make_powertcp():
    cases = []
    p = power_params(10_000_000_000, 20_000)  # 10G, 20 us: host BDP 25000 B
    cases.append(
        powertcp_case(
            "line-rate-no-queue",
            p,
            100000,
            [[h] for h in link_trace(10_000_000_000, 1_000_000, 5_000_000, 0, 12, 1200, 1.0)],
            note="Gamma_norm = 1: the window stays at the host-BDP cap",
        )
    )
    cases.append(
        powertcp_case(
            "queue-build-then-drain",
            p,
            100000,
            [
                [h]
                for h in link_trace(10_000_000_000, 1_000_000, 5_000_000, 0, 20, 1200, 1.6)
                + link_trace(
                    10_000_000_000, 1_000_000 + 20 * 1200, 5_000_000 + 20 * 1500, 4000, 20, 1200, 0.7
                )
            ],
            note="arrivals at 1.6x line rate then 0.7x: power rises above 1, window falls, then recovers",
        )
    )
    p25 = power_params(25_000_000_000, 10_000)  # 25G, 10 us
    a = link_trace(25_000_000_000, 2_000_000, 10**9, 0, 16, 500, 1.0)
    b = link_trace(10_000_000_000, 2_000_000 + 300, 7 * 10**8, 2000, 16, 500, 1.3)
    cases.append(
        powertcp_case(
            "two-hops-second-congested",
            p25,
            5000,
            [[x, y] for x, y in zip(a, b)],
            note="the hop with the larger normalised power (the 10G hop) drives the update",
        )
    )
    # wrap-around of the 32-bit wire fields: tx crosses 2^32, timestamps cross 2^32 ns
    p1 = power_params(1_000_000_000, 50_000)
    w = link_trace(1_000_000_000, 2**32 - 30_000, 2**32 - 8000, 3000, 10, 6000, 1.2)
    cases.append(
        powertcp_case(
            "wire-field-wraparound",
            p1,
            2**20,
            [[h] for h in w],
            note="tx_bytes and ts cross 2^32 (bytes, ns): implementations using 32-bit wire fields must "
            "take differences modulo 2^32",
        )
    )
    rnd = random.Random(7)
    trace, t, tx, q = [], 3_000_000, 123_456, 0.0
    for _ in range(30):
        dt = rnd.randint(400, 3000)
        f = rnd.choice([0.5, 0.9, 1.0, 1.2, 2.0])
        served = 10e9 / 8 * dt / 1e9
        q = max(0.0, q + (f - 1) * served)
        tx += int(served)
        t += dt
        trace.append([{"q": int(q), "tx": tx, "ts_ns": t, "rate": 10_000_000_000}])
    cases.append(
        powertcp_case(
            "random-walk", p, 7_000_000, trace, note="seeded random arrival factors and INT intervals"
        )
    )
    return cases


def theta_case(name, params, snd_nxt, samples, note=""):
    """samples: (advance_una_by_bytes, now_ns, rtt_ns); nxt advances by the same amount."""
    st = Power(params, snd_nxt)
    una, nxt = snd_nxt - int(params["host_bdp_bytes"]), snd_nxt
    steps = []
    for adv, now_ns, rtt_ns in samples:
        una += adv
        nxt += adv
        upd = st.theta(una, nxt, now_ns / 1e9, rtt_ns / 1e9)
        steps.append(
            {
                "una": una,
                "nxt": nxt,
                "now_s": now_ns / 1e9,
                "rtt_s": rtt_ns / 1e9,
                "updated": upd,
                "expect_cwnd_bytes": st.cwnd,
                "expect_smoothed_power": st.smooth,
            }
        )
    return {
        "name": name,
        "note": note,
        "params": params,
        "init": {"cwnd_bytes": params["host_bdp_bytes"], "snd_nxt": snd_nxt, "smoothed_power": 1.0},
        "steps": steps,
    }


def make_theta():
    p = power_params(10_000_000_000, 20_000)
    bdp = p["host_bdp_bytes"]
    cases = []
    # one ACK per quarter window, RTT samples given per ACK
    s, t = [], 1_000_000
    for i in range(24):
        t += 5_000
        s.append((bdp // 4, t, 20_000))
    cases.append(theta_case("rtt-at-base", p, 50_000, s, note="RTT = tau, gradient 0: window at the cap"))
    s, t, rtt = [], 1_000_000, 20_000
    for i in range(40):
        t += 6_000
        rtt += 1_500 if i < 20 else -1_500
        s.append((bdp // 4, t, rtt))
    cases.append(
        theta_case(
            "rtt-rise-then-fall",
            p,
            50_000,
            s,
            note="rising RTT (positive gradient) shrinks the window, falling RTT grows it",
        )
    )
    rnd = random.Random(11)
    s, t = [], 2_000_000
    for i in range(40):
        t += rnd.randint(3_000, 12_000)
        s.append((rnd.choice([bdp // 8, bdp // 4, bdp // 2]), t, rnd.randint(20_000, 60_000)))
    cases.append(theta_case("random", p, 9_999, s, note="seeded random RTT samples and ACK spacing"))
    return cases


def make_dctcp():
    p = {"mss_bytes": MSS, "g": 1 / 16, "min_cwnd_bytes": 2 * MSS}
    cases = []
    for name, seed, pmark in (
        ("slow-start-then-marks", 3, 0.3),
        ("light-marking", 5, 0.05),
        ("heavy-marking", 9, 0.8),
    ):
        rnd = random.Random(seed)
        cwnd0, una, nxt = 10 * MSS, 1000, 1000 + 10 * MSS
        st = Dctcp(p, cwnd0, una, nxt)
        steps = []
        for i in range(60):
            acked = MSS * rnd.choice([1, 1, 2])
            una += acked
            nxt = max(nxt, una + int(st.cwnd))
            ece = i >= 12 and rnd.random() < pmark
            st.ack(una, nxt, acked, ece)
            steps.append(
                {
                    "una": una,
                    "nxt": nxt,
                    "acked_bytes": acked,
                    "ece": ece,
                    "expect_cwnd_bytes": st.cwnd,
                    "expect_alpha": st.alpha,
                }
            )
        cases.append(
            {
                "name": name,
                "note": f"ECE with probability {pmark} after 12 ACKs",
                "params": p,
                "init": {"cwnd_bytes": cwnd0, "snd_una": 1000, "snd_nxt": 1000 + 10 * MSS, "alpha": 1.0},
                "steps": steps,
            }
        )
    return cases


def make_tbtcp():
    p = {"mss_bytes": MSS, "alpha": 0.1, "scale": 1, "min_cwnd_bytes": 2 * MSS}
    cases = []
    for name, seed, pmark, scale in (
        ("slow-start-then-qcd", 4, 0.25, 1),
        ("rai-sparse-marks", 6, 0.03, 1),
        ("scaled-cut-s2", 8, 0.2, 2),
        ("burst-of-marks-50pct-floor", 10, 0.9, 1),
    ):
        pp = dict(p, scale=scale)
        rnd = random.Random(seed)
        cwnd0, una, nxt = 10 * MSS, 0, 10 * MSS
        st = Tbtcp(pp, cwnd0, nxt)
        steps = []
        for i in range(60):
            pk = rnd.choice([1, 1, 2])
            acked = MSS * pk
            una += acked
            nxt = max(nxt, una + int(st.cwnd))
            marked = sum(1 for _ in range(pk) if i >= 10 and rnd.random() < pmark)
            st.ack(una, nxt, acked, marked)
            steps.append(
                {
                    "una": una,
                    "nxt": nxt,
                    "acked_bytes": acked,
                    "marked_packets": marked,
                    "expect_cwnd_bytes": st.cwnd,
                }
            )
        cases.append(
            {
                "name": name,
                "note": f"each packet CE with probability {pmark} after 10 ACKs",
                "params": pp,
                "init": {"cwnd_bytes": cwnd0, "snd_nxt": 10 * MSS},
                "steps": steps,
            }
        )
    return cases


def main():
    doc = {
        "format": 1,
        "units": "bytes, seconds, bits/s; sequence numbers in bytes; see docs/testbed.md",
        "tolerance": TOLERANCE,
        "algorithms": {
            "powertcp": make_powertcp(),
            "theta-powertcp": make_theta(),
            "dctcp": make_dctcp(),
            "tbtcp": make_tbtcp(),
        },
    }
    OUT.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    n = sum(len(c["steps"]) for cs in doc["algorithms"].values() for c in cs)
    print(f"wrote {OUT.name}: {sum(len(v) for v in doc['algorithms'].values())} cases, {n} steps")


if __name__ == "__main__":
    main()
