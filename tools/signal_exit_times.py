"""Measure how long `dccsim run` / `dccsim sweep` takes to exit after Ctrl-C (SIGINT) or SIGTERM
(docs/python-front.md, "Errors, input limits and signals").

    PYTHONPATH=python python tools/signal_exit_times.py [--repeat N] [--after S] -- run TARGET [ARGS...]

Starts `python -m dccsim ARGS --out <temp>` (a `--quiet` is added), waits --after seconds (the
engine running), sends each signal and prints the exit status, the time from the signal to the
exit, what was left beside the output directory (staging directories, lock) and stderr.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def measure(argv: list[str], sig: signal.Signals, after: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        p = subprocess.Popen(
            [sys.executable, "-m", "dccsim", *argv, "--quiet", "--out", str(out)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(after)
        t0 = time.monotonic()
        p.send_signal(sig)
        rc = p.wait(timeout=120)
        exit_s = time.monotonic() - t0
        try:
            _, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            err = "(stderr still held open by a child process 30 s after the exit)"
        left = sorted(q.name for q in Path(tmp).glob(".out.*"))
        return {"signal": sig.name, "rc": rc, "exit_s": round(exit_s, 3), "left": left, "stderr": err.strip()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--after", type=float, default=4.0, help="seconds between start and signal")
    ap.add_argument("argv", nargs=argparse.REMAINDER, help="-- run TARGET [ARGS...]")
    a = ap.parse_args()
    argv = a.argv[1:] if a.argv[:1] == ["--"] else a.argv
    for sig in (signal.SIGINT, signal.SIGTERM):
        for _ in range(a.repeat):
            print(measure(argv, sig, a.after), flush=True)


if __name__ == "__main__":
    main()
