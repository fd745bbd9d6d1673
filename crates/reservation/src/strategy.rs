//! The online reservation strategies of Castillo (2008) ch. 3 and their interpretation switches.

use std::fmt;
use std::str::FromStr;

use gridsched_geom::{Rule, StripOrder};

/// Where a strategy puts a job: which idle period (a sequence of [`Rule`]s tried in order) and
/// where inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// The earliest feasible idle period; the job starts as early as possible in it.
    FirstFit,
    /// Minimum leading idle period: first a period starting at/after the ready time (no gap),
    /// else the latest-starting period before it (smallest gap).
    MinLip,
    /// Minimum trailing idle period (mirror image of Min-LIP by default).
    MinTip,
    /// The shortest feasible idle period (minimum leading + trailing idle time).
    BestFit,
    /// Latest available completion time: only each server's completion time is tracked; gaps
    /// between reservations are never reused.
    Lact,
    /// Maximum leading idle period: the earliest-starting period before the ready time.
    MaxLip,
    /// Maximum trailing idle period: mirror image of Max-LIP.
    MaxTip,
}

impl Strategy {
    /// All strategies, in the order the CLI lists them.
    pub const ALL: [Strategy; 7] = [
        Strategy::FirstFit,
        Strategy::MinLip,
        Strategy::MinTip,
        Strategy::BestFit,
        Strategy::Lact,
        Strategy::MaxLip,
        Strategy::MaxTip,
    ];

    /// Command-line / config name.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::FirstFit => "first-fit",
            Strategy::MinLip => "min-lip",
            Strategy::MinTip => "min-tip",
            Strategy::BestFit => "best-fit",
            Strategy::Lact => "lact",
            Strategy::MaxLip => "max-lip",
            Strategy::MaxTip => "max-tip",
        }
    }

    /// Whether the strategy searches idle periods (all but LACT).
    pub fn uses_idle_periods(self) -> bool {
        self != Strategy::Lact
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Strategy::ALL
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Strategy::ALL.iter().map(|x| x.name()).collect();
                format!(
                    "unknown strategy `{s}`; expected one of {}",
                    names.join(", ")
                )
            })
    }
}

/// Which R2 period Min-LIP step 1 takes (Castillo spec A6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum R2Pick {
    /// The longest period in the first strip that has one (the thesis's O(1) max-length test).
    #[default]
    MaxLength,
    /// The earliest-starting R2 period.
    EarliestStart,
}

/// Where Min-LIP step 2 starts its bottom-to-top search (Castillo spec A7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Step2Start {
    /// In the ready time's own strip (restricted to starts before it), as §3.2.1's narrative.
    #[default]
    ReadyStrip,
    /// At the strip above it (`T_{p-1}`), as §3.3.2 literally says.
    StripAbove,
}

/// How Min-TIP is read (Castillo spec §2.6, A9): the text gives two incompatible descriptions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MinTipReading {
    /// Mirror image of Min-LIP under `t -> -t` on end-time ("vertical") strips (§3.3.4).
    #[default]
    Mirror,
    /// Min-LIP's search, but the job is placed at the *end* of the chosen period (§3.4).
    Narrative,
}

/// LACT's rule when no server is free by the ready time (Castillo spec A12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LactLate {
    /// The server that completes earliest; drop if it cannot meet the deadline.
    #[default]
    EarliestCompletion,
    /// The latest completion time that still meets the deadline.
    LatestFeasibleCompletion,
}

/// How Best-fit searches (Castillo spec §2.7, A10). The stated objective, "minimizes the sum
/// of the leading and trailing idle periods" (§3.2.2), is the shortest feasible period; the
/// per-strip queries of §3.3.3 return it only with the spec's boundary-strip fixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BestFitSearch {
    /// The shortest feasible period over all strips (the stated objective; the default).
    #[default]
    Exact,
    /// §3.3.3's queries as written, strip by strip, an answer the job does not fit discarded
    /// ([`Rule::ShortestByLiteralStripQueries`]): a sensitivity reading.
    LiteralStripQueries,
}

/// Every interpretation switch of the ch. 3 strategies; the defaults are the spec's proposals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StrategyOptions {
    pub r2_pick: R2Pick,
    pub step2_start: Step2Start,
    pub min_tip: MinTipReading,
    pub min_tip_step1_order: StripOrder,
    pub lact_late: LactLate,
    pub best_fit_search: BestFitSearch,
}

impl Default for StrategyOptions {
    fn default() -> Self {
        StrategyOptions {
            r2_pick: R2Pick::default(),
            step2_start: Step2Start::default(),
            min_tip: MinTipReading::default(),
            // The exact mirror of Min-LIP's top-to-bottom strip order.
            min_tip_step1_order: StripOrder::LatestFirst,
            lact_late: LactLate::default(),
            best_fit_search: BestFitSearch::default(),
        }
    }
}

/// Where the job goes inside the chosen period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placement {
    /// Start as early as possible: `max(start, ready)`.
    Early,
    /// End as late as possible: `min(end, deadline)`.
    Late,
}

/// One step of a strategy: a rule, and where to place the job if it finds a period.
pub(crate) type Step = (Rule, Placement);

impl StrategyOptions {
    /// The steps a gap-aware strategy tries in order (empty for LACT).
    pub(crate) fn steps(&self, strategy: Strategy) -> Vec<Step> {
        use Placement::{Early, Late};
        let r2 = match self.r2_pick {
            R2Pick::MaxLength => Rule::LongestInFirstStartStrip,
            R2Pick::EarliestStart => Rule::EarliestStartFromReady,
        };
        let r1 = Rule::LatestStartBeforeReady {
            skip_ready_strip: self.step2_start == Step2Start::StripAbove,
        };
        let tip1 = Rule::LongestInEndStrip {
            order: self.min_tip_step1_order,
        };
        match strategy {
            Strategy::FirstFit => vec![(Rule::EarliestFeasible, Early)],
            Strategy::BestFit => match self.best_fit_search {
                BestFitSearch::Exact => vec![(Rule::ShortestFeasible, Early)],
                BestFitSearch::LiteralStripQueries => {
                    vec![(Rule::ShortestByLiteralStripQueries, Early)]
                }
            },
            Strategy::MinLip => vec![(r2, Early), (r1, Early)],
            Strategy::MinTip => match self.min_tip {
                MinTipReading::Mirror => vec![(tip1, Late), (Rule::EarliestEndAfterDeadline, Late)],
                MinTipReading::Narrative => vec![(r2, Late), (r1, Late)],
            },
            Strategy::MaxLip => vec![(Rule::EarliestStartBeforeReady, Early), (r2, Early)],
            Strategy::MaxTip => vec![(Rule::LatestEndAfterDeadline, Late), (tip1, Late)],
            Strategy::Lact => Vec::new(),
        }
    }
}
