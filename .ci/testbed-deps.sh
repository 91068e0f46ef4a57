#!/usr/bin/env bash
# Install what the Linux testbed needs (BPF toolchain, iproute2/ethtool, iperf3 for manual checks).
# Idempotent and quiet: does nothing when every tool is already present.
set -euo pipefail
need=()
for pair in clang:clang llc:llvm bpftool:bpftool iperf3:iperf3 ethtool:ethtool tc:iproute2 nsenter:util-linux make:make cc:gcc; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || need+=("${pair##*:}")
done
[ -f /usr/include/bpf/bpf_helpers.h ] || need+=(libbpf-dev)
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
python3 -c "import pyarrow, pytest" 2>/dev/null || python3 -m pip install -q pyarrow pytest
