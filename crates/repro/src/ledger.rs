//! The divergence ledger of a document (`experiments/<paper>/ledger.toml`): its headline claims
//! (those its abstract or conclusion state), and for each the class of the difference between
//! the document and our measurement, with the evidence. REPRODUCTION.md opens each document's
//! section with it, beside each claim's live verdict.
//!
//! ```toml
//! [[row]]
//! claim = "klusacek-fig-2:2b"       # experiment id : claim id
//! class = "reading"                 # see `DivergenceClass`
//! summary = "what differs, with the measured numbers"
//! evidence = ["data/klusacek/fig-2.paper.csv", "experiments/klusacek/aux-sensitivity.toml"]
//! quotes = []                       # self-contradiction: both places of the document
//! switch = "tie_break"              # reading: the named switch (and its sensitivity entry)
//! ```
//!
//! The harness knows no document: it reads the file of whatever paper key it is given.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::HarnessError;

/// Why a headline claim's verdict differs from what the document says (or that it does not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DivergenceClass {
    /// No difference: the claim reproduces (its verdict must be PASS).
    Reproduced,
    /// The document contradicts itself: both places are quoted.
    SelfContradiction,
    /// An unstated parameter or reading decides it: the switch is named and a sensitivity run
    /// shows its effect.
    Reading,
    /// A simulator we did not write, run on the same workload, disagrees with the document too.
    Anchor,
    /// Our implementation was wrong and has been fixed (the verdict must then be PASS).
    OursFixed,
    /// No cause could be shown; the measured facts are stated, no guess.
    NotEstablished,
}

impl DivergenceClass {
    /// The class as the report words it.
    pub fn describe(self) -> &'static str {
        match self {
            DivergenceClass::Reproduced => "reproduced",
            DivergenceClass::SelfContradiction => "the document contradicts itself",
            DivergenceClass::Reading => "an unstated parameter or reading",
            DivergenceClass::Anchor => "the anchor disagrees with the document too",
            DivergenceClass::OursFixed => "our implementation (fixed)",
            DivergenceClass::NotEstablished => "not established",
        }
    }

    /// Whether the class requires the claim to pass.
    pub fn requires_pass(self) -> bool {
        matches!(
            self,
            DivergenceClass::Reproduced | DivergenceClass::OursFixed
        )
    }
}

/// One headline claim of the ledger.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LedgerRow {
    /// `experiment-id:claim-id`.
    pub claim: String,
    pub class: DivergenceClass,
    /// What differs (or that nothing does), with the measured numbers.
    pub summary: String,
    /// Repository paths of the data, entries or documents that show it.
    #[serde(default)]
    pub evidence: Vec<String>,
    /// For a self-contradiction: the document's two (or more) places, each with where it is.
    #[serde(default)]
    pub quotes: Vec<String>,
    /// For a reading: the named switch (and the entry that varies it).
    #[serde(default)]
    pub switch: String,
}

impl LedgerRow {
    /// The experiment id and the claim id.
    pub fn target(&self) -> Option<(&str, &str)> {
        self.claim.rsplit_once(':')
    }
}

/// A document's ledger.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ledger {
    #[serde(default)]
    pub row: Vec<LedgerRow>,
}

/// Where a paper's ledger lives under the project root.
pub fn ledger_path(root: &Path, paper_key: &str) -> PathBuf {
    root.join("experiments").join(paper_key).join("ledger.toml")
}

/// Reads a paper's ledger; `None` when it has none. A malformed file is an error naming it.
pub fn load_ledger(root: &Path, paper_key: &str) -> Result<Option<Ledger>, HarnessError> {
    let path = ledger_path(root, paper_key);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(HarnessError::io(&path, e)),
    };
    let ledger: Ledger = toml::from_str(&text)
        .map_err(|e| HarnessError::Spec(format!("{}: {e}", path.display())))?;
    for r in &ledger.row {
        if r.target().is_none() {
            return Err(HarnessError::Spec(format!(
                "{}: row `{}`: expected EXPERIMENT-ID:CLAIM-ID",
                path.display(),
                r.claim
            )));
        }
    }
    Ok(Some(ledger))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rows_and_refuses_unknown_classes_and_fields() {
        let l: Ledger = toml::from_str(
            r#"
[[row]]
claim = "p-fig-1:1a"
class = "self-contradiction"
summary = "s"
quotes = ["§3: a", "Table 1: b"]
"#,
        )
        .unwrap();
        assert_eq!(l.row[0].class, DivergenceClass::SelfContradiction);
        assert_eq!(l.row[0].target(), Some(("p-fig-1", "1a")));
        assert!(
            toml::from_str::<Ledger>(
                "[[row]]\nclaim = \"a:b\"\nclass = \"guess\"\nsummary = \"s\"\n"
            )
            .is_err()
        );
        assert!(
            toml::from_str::<Ledger>(
                "[[row]]\nclaim = \"a:b\"\nclass = \"reading\"\nsummary = \"s\"\nwhy = \"x\"\n"
            )
            .is_err()
        );
    }

    #[test]
    fn a_missing_ledger_is_none_and_a_malformed_one_names_its_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load_ledger(dir.path(), "p").unwrap(), None);
        let path = ledger_path(dir.path(), "p");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            "[[row]]\nclaim = \"no-colon\"\nclass = \"reading\"\nsummary = \"s\"\n",
        )
        .unwrap();
        let e = load_ledger(dir.path(), "p").unwrap_err().to_string();
        assert!(e.contains("ledger.toml") && e.contains("no-colon"), "{e}");
    }
}
