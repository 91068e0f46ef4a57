"""Real-Linux testbed: network namespaces, tc/eBPF software switches and struct_ops congestion
control, driven by the simulator's scenario files (docs/testbed.md)."""
