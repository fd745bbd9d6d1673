//! Results computed once per process and shared by the runs that need them (a parsed log, a
//! simulated background, a sample that several series read), computed by the first caller
//! while the others wait.
//!
//! Every table registers itself on first use, so that [`release_all`] can empty them all when
//! a paper-scale sweep has finished (`Model::sweep_finished`): without it a `reproduce` of a
//! whole document kept every sweep's samples and grew past 20 GB (Singh, 13 sweeps).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use gridsched_repro::model::ModelError;

type Cells<T> = Mutex<BTreeMap<String, Arc<OnceLock<Result<Arc<T>, String>>>>>;

/// A process-wide memo table keyed by a string that names everything the value depends on.
#[derive(Debug)]
pub struct Memo<T> {
    cells: OnceLock<Cells<T>>,
}

/// A memo table seen without its value type, for [`release_all`].
trait Release: Sync {
    fn release(&self);
}

impl<T: Send + Sync> Release for Memo<T> {
    fn release(&self) {
        if let Some(cells) = self.cells.get() {
            // A run holding a value keeps its `Arc`; a later run recomputes it (the value is a
            // pure function of its key, so the numbers do not change).
            cells.lock().unwrap_or_else(|p| p.into_inner()).clear();
        }
    }
}

/// Every memo table that has been used in this process.
static TABLES: Mutex<Vec<&'static dyn Release>> = Mutex::new(Vec::new());

/// Empties every memo table of the process (values still held by a run live until it drops
/// them).
pub fn release_all() {
    for table in TABLES.lock().unwrap_or_else(|p| p.into_inner()).iter() {
        table.release();
    }
}

impl<T: Send + Sync + 'static> Memo<T> {
    pub const fn new() -> Self {
        Memo {
            cells: OnceLock::new(),
        }
    }

    /// The value for `key`, computing it with `f` if no run has.
    pub fn get(
        &'static self,
        key: String,
        f: impl FnOnce() -> Result<T, ModelError>,
    ) -> Result<Arc<T>, ModelError> {
        let cell = {
            let mut cells = self
                .cells
                .get_or_init(|| {
                    TABLES.lock().unwrap_or_else(|p| p.into_inner()).push(self);
                    Default::default()
                })
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            cells.entry(key).or_default().clone()
        };
        cell.get_or_init(|| f().map(Arc::new).map_err(|e| e.0))
            .clone()
            .map_err(ModelError)
    }
}

impl<T: Send + Sync + 'static> Default for Memo<T> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_released_value_is_computed_again_and_a_kept_one_is_not() {
        static TABLE: Memo<u64> = Memo::new();
        static CALLS: AtomicUsize = AtomicUsize::new(0);
        let compute = || {
            CALLS.fetch_add(1, Ordering::SeqCst);
            Ok(42)
        };
        let first = TABLE.get("k".into(), compute).unwrap();
        let _ = TABLE.get("k".into(), compute).unwrap();
        assert_eq!(CALLS.load(Ordering::SeqCst), 1);
        release_all();
        // The run that held the value still has it.
        assert_eq!(*first, 42);
        let again = TABLE.get("k".into(), compute).unwrap();
        assert_eq!((*again, CALLS.load(Ordering::SeqCst)), (42, 2));
    }
}
