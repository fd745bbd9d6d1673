//! Results computed once per process and shared by the runs that need them (a parsed log, a
//! simulated background, a sample that several series read), computed by the first caller
//! while the others wait.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use gridsched_repro::model::ModelError;

type Cells<T> = Mutex<BTreeMap<String, Arc<OnceLock<Result<Arc<T>, String>>>>>;

/// A process-wide memo table keyed by a string that names everything the value depends on.
#[derive(Debug)]
pub struct Memo<T> {
    cells: OnceLock<Cells<T>>,
}

impl<T> Memo<T> {
    pub const fn new() -> Self {
        Memo {
            cells: OnceLock::new(),
        }
    }

    /// The value for `key`, computing it with `f` if no run has.
    pub fn get(
        &self,
        key: String,
        f: impl FnOnce() -> Result<T, ModelError>,
    ) -> Result<Arc<T>, ModelError> {
        let cell = {
            let mut cells = self
                .cells
                .get_or_init(Default::default)
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            cells.entry(key).or_default().clone()
        };
        cell.get_or_init(|| f().map(Arc::new).map_err(|e| e.0))
            .clone()
            .map_err(ModelError)
    }
}

impl<T> Default for Memo<T> {
    fn default() -> Self {
        Self::new()
    }
}
