//! A closed-loop source of a scenario flow (`FlowSpec::closed_loop`): the data; `traffic::
//! closed_loop` expands it into flows before the run.

use serde::{Deserialize, Serialize};

/// Where a source's next flow goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NextDestination {
    /// The destination of the first flow, every time.
    Same,
    /// A host drawn uniformly from all hosts but the sender ("each host sends a long flow to a
    /// randomly selected host", AMP §5.3).
    Random,
    /// A host drawn uniformly from the other racks (FatTree ToRs): the authors' ns-3 code
    /// (github.com/mkheirkhah/amp, scratch/FatTree.cc, `IssueNotInnerRackFlows`, called from
    /// `TransferExit` when a large flow ends).
    #[serde(rename = "other-rack")]
    OtherRack,
}

/// `FlowSpec::closed_loop`: Pareto sizes, restarted on completion.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosedLoop {
    /// Pareto shape a (> 1, so that the mean exists); AMP: 1.5.
    pub shape: f64,
    /// Mean flow size (bytes); AMP: 192 MB. The scale is x_m = mean·(a − 1)/a.
    pub mean_bytes: u64,
    pub destination: NextDestination,
    /// Sizes above this are drawn again (None: the paper's unbounded Pareto). The authors' ns-3
    /// code bounds at 8 × 96 MiB (scratch/FatTree.cc `LargeFlowSize`: ns-3's
    /// `ParetoVariable (2.0, 1.5, 8.0)` × 96 MiB, whose bound rejects and redraws).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
}
