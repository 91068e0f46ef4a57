//! Byte offsets of `struct dccsim_ctx` (bpf/plugin_api.h): the ABI between host and plugin.
//! Little-endian; the header's `_Static_assert(sizeof == 480)` and the unit test that compiles a
//! plugin reading every field keep the two sides equal.

pub const CTX_SIZE: usize = 480;
pub const MAX_HOPS: usize = 8;
pub const MAX_PARAMS: usize = 16;
pub const STATE_BYTES: usize = 104;
pub const ABI_VERSION: u32 = 1;

// the event
pub const NOW_NS: usize = 0;
pub const RTT_NS: usize = 8;
pub const ACKED_BYTES: usize = 16;
pub const SND_UNA: usize = 24;
pub const SND_NXT: usize = 28;
pub const SEQ: usize = 32;
pub const ECN: usize = 36;
pub const CWND_LIMITED: usize = 40;
pub const NHOPS: usize = 44;
pub const PATH_HOPS: usize = 48;
pub const EVENT: usize = 52;
pub const MAX_HOP_DELAY_NS: usize = 56;
/// `hop[i]` at HOP + 16 i: qlen, tx_bytes, ts_ns, rate_mbps (u32 each).
pub const HOP: usize = 64;
// the flow
pub const LINE_RATE_BPS: usize = 192;
pub const BASE_RTT_NS: usize = 200;
pub const PATH_RTT_NS: usize = 208;
pub const MSS: usize = 216;
pub const ABI: usize = 220;
pub const PARAM: usize = 224;
// outputs
pub const CWND_BYTES: usize = 352;
pub const PACING_BPS: usize = 360;
pub const TIMER_NS: usize = 368;
// the plugin's state
pub const STATE: usize = 376;

/// `ctx->event`
pub const EV_INIT: u32 = 0;
pub const EV_ACK: u32 = 1;
pub const EV_LOSS: u32 = 2;
pub const EV_TIMEOUT: u32 = 3;
pub const EV_TIMER: u32 = 4;

const _: () = assert!(STATE + STATE_BYTES == CTX_SIZE && PARAM + 8 * MAX_PARAMS == CWND_BYTES && HOP + 16 * MAX_HOPS == LINE_RATE_BPS);
