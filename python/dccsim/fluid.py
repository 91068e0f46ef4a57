"""Fluid model of the simplified window control laws of PowerTCP (NSDI'22 §2, Appendix A and C).

State: aggregate window w (bytes) of all flows and bottleneck queue q (bytes); bandwidth b
(bytes/s), base RTT τ (s). The model integrated here is

    θ(t)  = τ + q(t)/b                                  (Eq. 10)
    q̇(t)  = w(t)/θ(t) − b,   clamped so that q ≥ 0     (Eq. 4 / 9 with t^f = 0)
    ẇ(t)  = γ/δt · ( w_ref · e / f(t) − w(t) + β̂ )     (Eq. 3 / 14, Euler form of Eq. 19)

with the feedback f measured one RTT ago (at t − θ(t), the time the acknowledged byte left the
sender) and, per law (Eq. 20–22):

* ``voltage`` (queue-length based): e = bτ, f = q(t−θ) + bτ, w_ref = w(t). (The delay-based law
  e = τ, f = q/b + τ is the same ratio.)
* ``current`` (RTT-gradient based): e = 1, f = 1 + θ̇(t−θ) = 1 + q̇(t−θ)/b, w_ref = w(t).
* ``power`` (PowerTCP): e = b²τ, f = Γ(t−θ) with Γ = (q + bτ)·λ the product of voltage and current
  (λ = w/θ, the arrival rate: q̇ + μ of Eq. 11, which also holds when the queue is empty) and
  w_ref = w(t−θ) — the window that caused the feedback (Eq. 12).

Simplifications (stated so a reader can compare with the paper): the forward delay t^f is 0; the
update interval δt is τ; the aggregate window is capped at
``w_max_bdp``·bτ (without a cap the current law's trajectories grow without bound); integration is explicit Euler with a fixed step (default τ/100). Because
λ(t−θ)·θ(t−θ) = w(t−θ), the power law reduces to ẇ = γ/δt·(bτ + β̂ − w) (Eq. 15) whatever the
queue, which is why it has the unique equilibrium (bτ + β̂, β̂).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LAWS = ("voltage", "current", "power")
# The RTT-gradient feedback 1 + q̇/b tends to 0 while a queue drains at line rate with nothing
# arriving, and dividing by it diverges (the integration overflows). As the packet engine's
# `current_floor` for PowerTCP, the measured current is floored at 0.5·b.
CURRENT_FLOOR = 0.5


@dataclass(frozen=True)
class Params:
    b: float = 100e9 / 8  # bottleneck bandwidth, bytes/s (100 Gbps)
    tau: float = 20e-6  # base RTT, s
    beta_hat: float = 32_000.0  # aggregate additive increase β̂ = Σβ_i, bytes
    gamma: float = 0.9  # EWMA weight
    dt_update: float = 0.0  # δt; 0 = τ
    step: float = 0.0  # integration step; 0 = τ/100
    w_max_bdp: float = 10.0  # window ceiling in BDPs (the senders' NICs/window limit)

    @property
    def bdp(self) -> float:
        return self.b * self.tau

    @property
    def equilibrium(self) -> tuple[float, float]:
        """(w_e, q_e) = (bτ + β̂, β̂): PowerTCP's equilibrium (Theorem 1)."""
        return self.bdp + self.beta_hat, self.beta_hat


def integrate(law: str, w0: float, q0: float, duration: float, p: Params = Params()) -> dict:
    """Trajectory from (w0, q0). Returns arrays t (s), w, q (bytes) and rate λ = w/θ (bytes/s)."""
    if law not in LAWS:
        raise ValueError(f"unknown law {law!r}; allowed: {', '.join(LAWS)}")
    h = p.step or p.tau / 100
    dtu = p.dt_update or p.tau
    gr = p.gamma / dtu
    n = int(round(duration / h)) + 1
    t = np.arange(n) * h
    w = np.empty(n)
    q = np.empty(n)
    qdot = np.empty(n)
    w[0], q[0] = w0, q0
    b, bdp = p.b, p.bdp
    for i in range(n - 1):
        theta = p.tau + q[i] / b
        lam = w[i] / theta
        qd = lam - b
        if q[i] <= 0 and qd < 0:
            qd = 0.0
        qdot[i] = qd
        j = i - int(round(theta / h))  # index of t − θ(t); before 0 the initial state holds
        k = max(j, 0)
        qj = q[k]
        wj = w[k]
        if law == "voltage":
            target = w[i] * bdp / (qj + bdp)
        elif law == "current":
            qdj = qdot[k] if j >= 0 else _qdot0(w0, q0, p)
            target = w[i] / max(CURRENT_FLOOR, 1 + qdj / b)
        else:  # power: e = b²τ, f = (q + bτ)·λ at t − θ, applied to w(t − θ)
            lam_j = wj / (p.tau + qj / b)
            target = wj * b * b * p.tau / ((qj + bdp) * lam_j)
        w[i + 1] = min(p.w_max_bdp * bdp, max(0.0, w[i] + h * gr * (target - w[i] + p.beta_hat)))
        q[i + 1] = max(0.0, q[i] + h * qd)
    qdot[-1] = qdot[-2] if n > 1 else 0.0
    rate = w / (p.tau + q / b)
    return {"t": t, "w": w, "q": q, "rate": rate}


def _qdot0(w0, q0, p: Params) -> float:
    qd = w0 / (p.tau + q0 / p.b) - p.b
    return 0.0 if q0 <= 0 and qd < 0 else qd


def default_initial_states(p: Params = Params()) -> list[tuple[float, float]]:
    """Initial (w, q): below, at and far above the BDP, with and without a standing queue."""
    d = p.bdp
    return [
        (0.3 * d, 0.0),
        (1.0 * d, 1.5 * d),
        (2.0 * d, 0.0),
        (3.0 * d, 2.0 * d),
        (2.5 * d, 0.5 * d),
        (0.6 * d, 1.0 * d),
    ]


def analyse(law: str, states, duration: float, p: Params = Params()) -> dict:
    """Integrate from each state; summarise where trajectories end and what they cost.

    * ``ends``: final (w, q) of each trajectory.
    * ``spread_bytes``: largest distance between two end points (max of |Δw|, |Δq|).
    * ``settled``: every trajectory's w and q changed by < 0.1 % of bτ over the last 10 RTTs.
    * ``unique``: settled and spread < 1 % of bτ.
    * ``loss_trajectories``: how many trajectories that start with a busy link (w0/θ0 ≥ b) later
      run it below 99 % of b (queue empty and w < bτ): "throughput loss on the way".
    * ``min_util``: lowest λ/b after the first time the link was busy, over all trajectories.
    """
    ends, loss, min_util, settled = [], 0, 1.0, True
    trajs = []
    for w0, q0 in states:
        tr = integrate(law, w0, q0, duration, p)
        trajs.append(tr)
        ends.append((float(tr["w"][-1]), float(tr["q"][-1])))
        # link utilisation: full while a queue is waiting, else the arrival rate over b
        util = np.where(tr["q"] > 0, 1.0, np.minimum(tr["rate"] / p.b, 1.0))
        busy = np.nonzero(util >= 0.999)[0]
        if busy.size:
            after = util[busy[0] :]
            min_util = min(min_util, float(after.min()))
            if w0 / (p.tau + q0 / p.b) >= p.b and after.min() < 0.99:
                loss += 1
        k = int(round(10 * p.tau / (tr["t"][1] - tr["t"][0])))
        for x in (tr["w"], tr["q"]):
            if abs(x[-1] - x[-1 - k]) >= 1e-3 * p.bdp:
                settled = False
    e = np.array(ends)
    spread = float(max(np.ptp(e[:, 0]), np.ptp(e[:, 1])))
    return {
        "law": law,
        "ends": ends,
        "spread_bytes": spread,
        "settled": settled,
        "unique": bool(settled and spread < 0.01 * p.bdp),
        "loss_trajectories": loss,
        "busy_start_trajectories": sum(1 for w0, q0 in states if w0 / (p.tau + q0 / p.b) >= p.b),
        "min_util": min_util,
        "trajectories": trajs,
    }
