//! Documents and the catalog the experiments side registers: which documents exist and which
//! models their entries may name. The harness itself knows no document.

use std::sync::Arc;

use crate::model::Model;

/// One source document (or a group of checks that is not a document, e.g. real-log replays).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paper {
    /// Id prefix of its experiments (`castillo` for `castillo-fig-3.4`) and the folder of its
    /// entries and outputs.
    pub key: &'static str,
    /// Seed number in `shared/seeds/` (`"-"` for a group that is not a seed document). Bare ids
    /// that several documents share resolve to the lowest seed.
    pub seed: &'static str,
    pub citation: &'static str,
    /// How a listing names it: authors and year, `Castillo 2008`.
    pub short: &'static str,
    /// The implementation spec that resolves its ambiguities (a file in `shared/spec/`).
    pub spec: &'static str,
}

/// A model shared by the registry, the runner and the report.
#[derive(Clone)]
pub struct ModelRef(pub Arc<dyn Model>);

impl std::fmt::Debug for ModelRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ModelRef({})", self.0.name())
    }
}

impl std::ops::Deref for ModelRef {
    type Target = dyn Model;
    fn deref(&self) -> &Self::Target {
        self.0.as_ref()
    }
}

/// The documents and models the experiment entries may use, registered by the experiments
/// side, one [`document`](Catalog::document) call per document.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    papers: Vec<&'static Paper>,
    models: Vec<ModelRef>,
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Self {
        Catalog::default()
    }

    /// Registers a document and the models its entries use. Registration order is the order
    /// of the report's sections.
    pub fn document(mut self, paper: &'static Paper, models: Vec<Box<dyn Model>>) -> Self {
        self.papers.push(paper);
        self.models
            .extend(models.into_iter().map(|m| ModelRef(Arc::from(m))));
        self
    }

    /// The documents in registration order.
    pub fn papers(&self) -> &[&'static Paper] {
        &self.papers
    }

    /// Every registered model.
    pub fn models(&self) -> &[ModelRef] {
        &self.models
    }

    /// The document an experiment id belongs to (its id starts with `<key>-`).
    pub fn paper_of(&self, id: &str) -> Option<&'static Paper> {
        self.papers.iter().copied().find(|p| {
            id.strip_prefix(p.key)
                .is_some_and(|rest| rest.starts_with('-'))
        })
    }

    /// The model with this name.
    pub fn model(&self, name: &str) -> Option<&ModelRef> {
        self.models.iter().find(|m| m.name() == name)
    }

    /// Rejects two documents with one key and two models with one name.
    pub fn check(&self) -> Result<(), String> {
        for (i, p) in self.papers.iter().enumerate() {
            if self.papers[..i].iter().any(|q| q.key == p.key) {
                return Err(format!("two documents have the key `{}`", p.key));
            }
        }
        for (i, m) in self.models.iter().enumerate() {
            if self.models[..i].iter().any(|n| n.name() == m.name()) {
                return Err(format!("two models are named `{}`", m.name()));
            }
        }
        Ok(())
    }
}
