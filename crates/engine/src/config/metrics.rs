//! What a run records (`[metrics]`): time series of ports and flows, packet captures.

use crate::schema::{Range, Type};

crate::section! {
    pub struct MetricsConfig ("metrics") {
        interval_ps: u64 = 10_000_000,
            key "interval", Type::Time, Range::ANY,
            "Sampling interval of the time series of the listed ports and (with flows) of every flow; 0 = no sampling. Nothing is sampled when no port is listed and flows is off.",
            source "ours: 10 µs, about one base RTT of the catalog's FatTree (4.7 µs within a rack, 29 µs across pods): a queue building up within an RTT shows, at 100 000 samples per listed port per simulated second";
        ports: Vec<String> = vec![],
            key "ports", Type::Names, Range::ANY,
            "Egress ports to sample, \"<node>-><peer>\" (e.g. \"tor0->h16\"), or \"*\" for all.",
            source "ours: none";
        flows: bool = false,
            key "flows", Type::Bool, Range::ANY,
            "Sample every flow's window and rate.",
            source "ours: off";
        start_ps: u64 = 0,
            key "start", Type::Time, Range::ANY,
            "Start of sampling.",
            source "ours: the run's start";
        pcap: Vec<String> = vec![],
            key "pcap", Type::Names, Range::ANY,
            "Egress ports whose packets are captured at transmission start (packets.parquet, packets.pcap); names as ports.",
            source "ours: none";
        pcap_max: u64 = 1_000_000,
            key "pcap_max", Type::Count, Range::closed(1.0, 1e8),
            "At most this many packets are captured (the rest are counted in capture_overflow).",
            source "ours: a million packets (≈ 40 MB of records)";
        trace: Vec<String> = vec![],
            key "trace", Type::Names, Range::ANY,
            "Controllers' internal variables recorded per flow at every sample into trace.parquet (e.g. [\"smoothed_power\", \"alpha\"]; [\"*\"] = every variable each controller reports; docs/results.md lists them).",
            source "ours: none";
        log: Vec<String> = vec![],
            key "log", Type::Names, Range::ANY,
            "Debug log into log.txt: one line per event of a component, filtered, e.g. [\"cc:flow=3,node=h2\", \"fabric:node=sw0\"] (components: cc, nic, fabric, transport; filters: flow, node; `dccsim run --log`; docs/results.md).",
            source "ours: off";
    }
    rules {
        "trace": |s| s.trace.is_empty() || s.interval_ps > 0, "needs metrics.interval > 0 (the trace is sampled with the time series)";
    }
}
