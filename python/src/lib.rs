//! `gridsched._native`: the Rust half of the Python package (`python/gridsched` is the other
//! half, which turns what these functions return into pandas DataFrames).
//!
//! Nothing here schedules or formats: every command runs through the CLI's own code
//! ([`gridsched_cli::run_args`], so the files it writes are the CLI's files, columns and units
//! included), a replay under a policy written in Python through [`gridsched_cli::replay_driven`]
//! and the batch simulator's round API ([`Simulator::begin_round`]), reproductions through
//! [`gridsched_repro::reproduce()`]. What this crate adds is the boundary:
//!
//! - errors become `gridsched.GridschedError` (a `ValueError`) carrying the crates' messages,
//!   which name the file and line; a panic is caught and raised as `GridschedError` too;
//! - long runs release the GIL and run on a worker thread while the calling thread waits in
//!   slices of 50 ms, checking for signals; on Ctrl-C the run is cancelled at its next
//!   checkpoint (`gridsched_sim::cancel`) and `KeyboardInterrupt` is raised once it has stopped;
//! - `Round` is the batch simulator's `Round` for a Python policy.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use gridsched_batch::{Simulator, Time};
use gridsched_repro::{Project, RunOptions, Scale};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

create_exception!(
    gridsched,
    GridschedError,
    PyValueError,
    "Bad input or a refused request: the message names the file and line (or the job) at fault."
);

/// The message of an error and its causes (`{:#}`), as the CLI prints it.
fn message(e: &anyhow::Error) -> String {
    format!("{e:#}")
}

fn to_py(e: anyhow::Error) -> PyErr {
    GridschedError::new_err(message(&e))
}

/// The payload of a caught panic, as an error.
fn panic_error(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let what = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic".to_string());
    GridschedError::new_err(format!("internal error (please report it): {what}"))
}

/// Runs `work` on a worker thread with the GIL released; the calling thread waits in slices of
/// 50 ms and checks for signals between them. On `KeyboardInterrupt` (or any signal handler's
/// exception) it asks the run to stop ([`gridsched_sim::cancel`]: the models' loops unwind at
/// their next checkpoint, within one event, request or work item), waits until the worker has
/// stopped, so no work goes on in the background, then raises the exception.
fn interruptible<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> anyhow::Result<T> + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("gridsched".into())
        .spawn(move || {
            let result = catch_unwind(AssertUnwindSafe(work));
            let _ = tx.send(result);
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a worker thread: {e}")))?;
    // The receiver goes into each wait and comes back out (it is `Send`, not `Sync`).
    let mut rx = rx;
    loop {
        let (received, back) = py.detach(move || (rx.recv_timeout(Duration::from_millis(50)), rx));
        rx = back;
        match received {
            Ok(Ok(result)) => return result.map_err(to_py),
            Ok(Err(payload)) if gridsched_sim::cancel::is_cancelled(payload.as_ref()) => {
                // Another call's Ctrl-C (the request is process-wide) stopped this one too.
                return Err(pyo3::exceptions::PyKeyboardInterrupt::new_err(
                    "interrupted by a cancellation requested during another gridsched call",
                ));
            }
            Ok(Err(panic)) => return Err(panic_error(panic)),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(interrupt) = py.check_signals() {
                    gridsched_sim::cancel::request();
                    let _ = py.detach(move || rx.recv().map(|_| ()));
                    gridsched_sim::cancel::clear();
                    return Err(interrupt);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err(
                    "the worker thread ended without a result",
                ));
            }
        }
    }
}

/// Runs a `gridsched` command line (program name first) as the binary does. Outputs go where
/// the command line says (the Python side passes files in a temporary directory).
#[pyfunction]
fn run_command(py: Python<'_>, argv: Vec<String>) -> PyResult<()> {
    interruptible(py, move || gridsched_cli::run_args(argv))
}

/// `gridsched replay` (command line `argv`) under its built-in policy; Ctrl-C stops the
/// simulation at its next event (the batch simulator's cancellation checkpoint).
#[pyfunction]
fn replay_builtin(py: Python<'_>, argv: Vec<String>) -> PyResult<()> {
    interruptible(py, move || {
        let mut drive = |mut sim: Simulator| -> anyhow::Result<Simulator> {
            sim.run();
            Ok(sim)
        };
        gridsched_cli::replay_driven(argv, false, &mut drive)
    })
}

/// `gridsched replay` (command line `argv`) under `policy`, a Python object whose
/// `round(r)` is called at every event time with the [`Round`] `r`. Runs on the calling
/// thread with the GIL held (the policy is Python code); an exception the policy raises
/// (`KeyboardInterrupt` included) ends the replay and is raised again here, unchanged.
#[pyfunction]
fn replay_policy(py: Python<'_>, argv: Vec<String>, policy: Py<PyAny>) -> PyResult<()> {
    let round_fn = policy.getattr(py, "round").map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(
            "a policy is an object with a round(self, r) method (see gridsched.policies.Easy)",
        )
    })?;
    let mut raised: Option<PyErr> = None;
    let mut drive = |sim: Simulator| -> anyhow::Result<Simulator> {
        let round = Py::new(py, Round { sim: Some(sim) })
            .map_err(|e| anyhow::anyhow!("cannot create the round object: {e}"))?;
        let mut n: u64 = 0;
        let outcome: PyResult<()> = (|| {
            loop {
                {
                    let mut r = round.borrow_mut(py);
                    let sim = r.sim.as_mut().expect("the round owns the simulator");
                    if !sim
                        .begin_round()
                        .map_err(|e| GridschedError::new_err(e.to_string()))?
                    {
                        return Ok(());
                    }
                }
                round_fn.call1(py, (round.clone_ref(py),))?;
                n += 1;
                if n.is_multiple_of(4096) {
                    py.check_signals()?;
                }
            }
        })();
        let sim = round
            .borrow_mut(py)
            .sim
            .take()
            .expect("the round owns the simulator");
        match outcome {
            Ok(()) if sim.waiting() > 0 => anyhow::bail!(
                "the policy left {} jobs waiting when nothing else was left to happen \
                 (a round must start a job that fits, or ask for a later round with wake_at)",
                sim.waiting()
            ),
            Ok(()) => Ok(sim),
            Err(e) => {
                raised = Some(e);
                anyhow::bail!("the policy raised an exception")
            }
        }
    };
    let result = gridsched_cli::replay_driven(argv, true, &mut drive);
    if let Some(e) = raised {
        return Err(e);
    }
    result.map_err(to_py)
}

/// What a policy sees and may do in one scheduling round: the batch simulator's `Round`
/// (crates/batch), for the round the engine is in. Valid only during the policy's `round`
/// call; machine `m` defaults to 0 (a replay's cluster is one machine).
#[pyclass(module = "gridsched", unsendable)]
struct Round {
    sim: Option<Simulator>,
}

impl Round {
    fn r(&mut self) -> PyResult<gridsched_batch::Round<'_>> {
        self.sim
            .as_mut()
            .and_then(Simulator::current_round)
            .ok_or_else(|| {
                PyRuntimeError::new_err("no round is open: a Round is valid only inside round()")
            })
    }
}

/// A running job as `Round.running()` lists it: (index, machine, procs, start, planned_end).
type RunningRow = (usize, u32, u32, Time, Time);

fn refused(e: gridsched_batch::SimError) -> PyErr {
    GridschedError::new_err(e.to_string())
}

#[pymethods]
impl Round {
    /// The current time (seconds).
    #[getter]
    fn now(&mut self) -> PyResult<Time> {
        Ok(self.r()?.now())
    }
    /// Number of machines (1 in a replay).
    #[getter]
    fn machines(&mut self) -> PyResult<usize> {
        Ok(self.r()?.platform().len())
    }
    /// Job indices that arrived since the last round, in arrival order.
    fn arrived(&mut self) -> PyResult<Vec<u32>> {
        Ok(self.r()?.arrived().to_vec())
    }
    /// Job indices that completed since the last round.
    fn completed(&mut self) -> PyResult<Vec<u32>> {
        Ok(self.r()?.completed().to_vec())
    }
    /// Completions before their planned end since the last round: (index, machine, planned_end).
    fn early_completions(&mut self) -> PyResult<Vec<(u32, u32, Time)>> {
        Ok(self
            .r()?
            .early_completions()
            .iter()
            .map(|e| (e.index, e.machine, e.planned_end))
            .collect())
    }
    /// Whether capacity was freed at this instant (a completion or a reservation's end).
    fn capacity_released(&mut self) -> PyResult<bool> {
        Ok(self.r()?.capacity_released())
    }
    /// Whether a fixed reservation was added or cancelled since the last round.
    fn reservations_changed(&mut self) -> PyResult<bool> {
        Ok(self.r()?.reservations_changed())
    }
    /// The waiting jobs (indices) in arrival order.
    fn waiting(&mut self) -> PyResult<Vec<u32>> {
        Ok(self.r()?.waiting().to_vec())
    }
    /// Whether job `j` has arrived and not started.
    fn is_waiting(&mut self, j: u32) -> PyResult<bool> {
        Ok(self.r()?.is_waiting(j))
    }
    /// The running jobs: (index, machine, procs, start, planned_end).
    fn running(&mut self) -> PyResult<Vec<RunningRow>> {
        Ok(self
            .r()?
            .running()
            .map(|j| (j.index, j.machine, j.procs, j.start, j.planned_end))
            .collect())
    }
    /// Job `j` as submitted: a dict with id, submit, procs, run, requested (None if unknown).
    fn job<'py>(&mut self, py: Python<'py>, j: u32) -> PyResult<Bound<'py, PyDict>> {
        let job = self.job_checked(j)?;
        let d = PyDict::new(py);
        d.set_item("id", job.id)?;
        d.set_item("submit", job.submit)?;
        d.set_item("procs", job.procs)?;
        d.set_item("run", job.run)?;
        d.set_item("requested", job.requested)?;
        Ok(d)
    }
    /// Processors job `j` needs.
    fn procs(&mut self, j: u32) -> PyResult<u32> {
        Ok(self.job_checked(j)?.procs)
    }
    /// Job `j`'s rank in arrival order (0 for the first).
    fn arrival_rank(&mut self, j: u32) -> PyResult<u32> {
        self.job_checked(j)?;
        Ok(self.r()?.arrival_rank(j))
    }
    /// The run time the engine plans job `j` with on machine `m` (its estimate).
    #[pyo3(signature = (j, m = 0))]
    fn planned_run_time(&mut self, j: u32, m: usize) -> PyResult<Time> {
        self.job_checked(j)?;
        self.machine_checked(m)?;
        Ok(self.r()?.planned_run_time(j, m))
    }
    /// Processors of machine `m` free now.
    #[pyo3(signature = (m = 0))]
    fn free_now(&mut self, m: usize) -> PyResult<i64> {
        self.machine_checked(m)?;
        Ok(self.r()?.free_now(m))
    }
    /// Processors of machine `m` free at time `t` (>= now) in its profile.
    #[pyo3(signature = (t, m = 0))]
    fn free_at(&mut self, t: Time, m: usize) -> PyResult<i64> {
        self.machine_checked(m)?;
        let r = self.r()?;
        let now = r.now();
        Ok(r.profile(m).free_at(t.max(now)))
    }
    /// Machine `m`'s availability profile from now: [(time, free processors), ...], the
    /// first at now, then one per change.
    #[pyo3(signature = (m = 0))]
    fn profile(&mut self, m: usize) -> PyResult<Vec<(Time, i64)>> {
        self.machine_checked(m)?;
        Ok(self.r()?.profile(m).steps())
    }
    /// The first time from now at which machine `m` has at least `procs` processors free
    /// (None if never).
    #[pyo3(signature = (procs, m = 0))]
    fn first_at_least(&mut self, procs: i64, m: usize) -> PyResult<Option<Time>> {
        self.machine_checked(m)?;
        let r = self.r()?;
        let now = r.now();
        Ok(r.profile(m).first_at_least(now, procs))
    }
    /// The earliest time from now at which `procs` processors stay free on machine `m` for
    /// `duration` seconds (None if never).
    #[pyo3(signature = (duration, procs, m = 0))]
    fn earliest_fit(&mut self, duration: Time, procs: u32, m: usize) -> PyResult<Option<Time>> {
        self.machine_checked(m)?;
        let r = self.r()?;
        let now = r.now();
        Ok(r.profile(m).earliest_fit(now, duration, procs))
    }
    /// Whether machine `m`'s profile is non-decreasing from now (no reservation or hold on it).
    #[pyo3(signature = (m = 0))]
    fn is_monotone(&mut self, m: usize) -> PyResult<bool> {
        self.machine_checked(m)?;
        Ok(self.r()?.is_monotone(m))
    }
    /// Whether waiting job `j` can start now on machine `m`.
    #[pyo3(signature = (j, m = 0))]
    fn fits_now(&mut self, j: u32, m: usize) -> PyResult<bool> {
        Ok(self.r()?.fits_now(j, m))
    }
    /// Starts waiting job `j` now on machine `m`; raises GridschedError if it does not fit.
    #[pyo3(signature = (j, m = 0))]
    fn start(&mut self, j: u32, m: usize) -> PyResult<()> {
        self.r()?.start(j, m).map_err(refused)
    }
    /// Holds machine `m` for waiting job `j` from `start` until the end of this round (EASY's
    /// reservation for its blocked head).
    #[pyo3(signature = (j, start, m = 0))]
    fn hold(&mut self, j: u32, start: Time, m: usize) -> PyResult<()> {
        self.r()?.hold(j, m, start).map_err(refused)
    }
    /// Reserves machine `m` for waiting job `j` from `start` until it starts or the
    /// reservation is cancelled (conservative backfilling's plan).
    #[pyo3(signature = (j, start, m = 0))]
    fn reserve(&mut self, j: u32, start: Time, m: usize) -> PyResult<()> {
        self.r()?.reserve(j, m, start).map_err(refused)
    }
    /// Job `j`'s reservation as (machine, start, end, first_start), or None.
    fn reservation(&mut self, j: u32) -> PyResult<Option<(u32, Time, Time, Time)>> {
        Ok(self
            .r()?
            .reservation(j)
            .map(|r| (r.machine, r.start, r.end, r.first_start)))
    }
    /// Cancels job `j`'s reservation.
    fn cancel(&mut self, j: u32) -> PyResult<()> {
        self.r()?.cancel(j).map(|_| ()).map_err(refused)
    }
    /// Cancels every reservation (this round's holds are kept).
    fn cancel_all(&mut self) -> PyResult<()> {
        self.r()?.cancel_all();
        Ok(())
    }
    /// Asks for a round at time `t` even if nothing happens then.
    fn wake_at(&mut self, t: Time) -> PyResult<()> {
        self.r()?.wake_at(t);
        Ok(())
    }
    /// Withdraws every pending wake_at request.
    fn clear_wake(&mut self) -> PyResult<()> {
        self.r()?.clear_wake();
        Ok(())
    }
}

impl Round {
    /// Job `j` (a copy), or an error naming the index.
    fn job_checked(&mut self, j: u32) -> PyResult<gridsched_batch::Job> {
        let n = self.sim.as_ref().map_or(0, Simulator::job_count);
        let r = self.r()?;
        if (j as usize) < n {
            Ok(*r.job(j))
        } else {
            Err(GridschedError::new_err(format!("no job index {j}")))
        }
    }
    fn machine_checked(&mut self, m: usize) -> PyResult<()> {
        if m < self.r()?.platform().len() {
            Ok(())
        } else {
            Err(GridschedError::new_err(format!("no machine {m}")))
        }
    }
}

/// Reads an SWF log (a path or a short name of the data directory): the jobs CSV of `trace
/// convert` as bytes, the header as a dict, the reader's counts as a dict.
#[pyfunction]
#[pyo3(signature = (trace, data_dir = None, limit = None))]
fn read_swf<'py>(
    py: Python<'py>,
    trace: String,
    data_dir: Option<PathBuf>,
    limit: Option<usize>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    use gridsched_workload::swf::write_jobs_csv;
    let (csv, log) = interruptible(py, move || {
        // The CLI's door for logs: the same name resolution and checks as every command's.
        let log = gridsched_cli::read_log(&trace, data_dir.as_deref(), limit)?;
        let mut csv = Vec::new();
        write_jobs_csv(&mut csv, &log.jobs)?;
        Ok((csv, log))
    })?;
    let h = &log.header;
    let header = PyDict::new(py);
    header.set_item("path", &log.path)?;
    header.set_item("version", &h.version)?;
    header.set_item("computer", &h.computer)?;
    header.set_item("installation", &h.installation)?;
    header.set_item("acknowledge", &h.acknowledge)?;
    header.set_item("information", &h.information)?;
    header.set_item("conversion", &h.conversion)?;
    header.set_item("max_jobs", h.max_jobs)?;
    header.set_item("max_records", h.max_records)?;
    header.set_item("preemption", &h.preemption)?;
    header.set_item("unix_start_time", h.unix_start_time)?;
    header.set_item("time_zone", h.time_zone)?;
    header.set_item("time_zone_string", &h.time_zone_string)?;
    header.set_item("start_time", &h.start_time)?;
    header.set_item("end_time", &h.end_time)?;
    header.set_item("max_nodes", h.max_nodes)?;
    header.set_item("max_procs", h.max_procs)?;
    header.set_item("max_runtime", h.max_runtime)?;
    header.set_item("max_memory", h.max_memory)?;
    header.set_item("allow_overuse", &h.allow_overuse)?;
    header.set_item("max_queues", h.max_queues)?;
    header.set_item("max_partitions", h.max_partitions)?;
    header.set_item("notes", &h.notes)?;
    header.set_item("warnings", &h.warnings)?;
    let fields = PyDict::new(py);
    for (k, v) in &h.fields {
        if !fields.contains(k)? {
            fields.set_item(k, v)?;
        }
    }
    header.set_item("fields", fields)?;
    let r = &log.report;
    let report = PyDict::new(py);
    report.set_item("records", r.records)?;
    report.set_item("kept", r.kept)?;
    report.set_item("skipped_unknown_submit", r.skipped_unknown_submit)?;
    report.set_item("skipped_unknown_run_time", r.skipped_unknown_run_time)?;
    report.set_item("skipped_zero_run_time", r.skipped_zero_run_time)?;
    report.set_item("skipped_unknown_procs", r.skipped_unknown_procs)?;
    report.set_item("skipped_zero_procs", r.skipped_zero_procs)?;
    report.set_item("procs_from_requested", r.procs_from_requested)?;
    report.set_item("out_of_order", r.out_of_order)?;
    report.set_item("warnings", r.warnings())?;
    Ok((PyBytes::new(py, &csv), header, report))
}

/// The experiment catalogue: one dict per experiment (id, document, kind, title, sweep,
/// metrics, claims).
#[pyfunction]
fn experiments<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let registry = gridsched_experiments::registry().map_err(|e| to_py(e.into()))?;
    let list = PyList::empty(py);
    for e in registry.all() {
        let d = PyDict::new(py);
        d.set_item("id", &e.spec.id)?;
        d.set_item("document", e.paper.short)?;
        d.set_item("paper", e.paper.key)?;
        d.set_item("kind", &e.spec.kind)?;
        d.set_item("title", &e.spec.title)?;
        d.set_item("sweep", &e.sweep.name)?;
        d.set_item("metrics", e.spec.metrics.join(" "))?;
        d.set_item("claims", e.claims.len())?;
        d.set_item("source", &e.source)?;
        list.append(d)?;
    }
    Ok(list)
}

/// Reproduces experiment `id` into the project directory `root` (its data/ and figures/):
/// the written files and the claims with their verdicts. As `gridsched reproduce`, a
/// paper-scale run into a checkout with uncommitted changes is refused unless `allow_dirty`
/// (the Python side sets it for its temporary directories, which are no checkout).
#[pyfunction]
#[pyo3(signature = (id, root, scale = "quick".to_string(), reps = None, jobs = None, threads = None, data_dir = None, allow_dirty = false))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn reproduce<'py>(
    py: Python<'py>,
    id: String,
    root: PathBuf,
    scale: String,
    reps: Option<u32>,
    jobs: Option<u64>,
    threads: Option<usize>,
    data_dir: Option<PathBuf>,
    allow_dirty: bool,
) -> PyResult<(String, Vec<String>, Bound<'py, PyList>)> {
    let scale = Scale::from_name(&scale).ok_or_else(|| {
        GridschedError::new_err(format!("unknown scale `{scale}`; expected quick or paper"))
    })?;
    if let Some(dir) = &data_dir {
        gridsched_sim::data::set_process_data_dir(dir);
    }
    let (full_id, files, claims) = interruptible(py, move || {
        let registry = gridsched_experiments::registry()?;
        let exp = registry.resolve(&id)?;
        let opts = RunOptions {
            scale: Some(scale),
            replications: reps,
            jobs,
            threads,
            shard: None,
            progress: false,
            journal_dir: None,
            overrides: Default::default(),
            allow_dirty,
        };
        let project = Project { root };
        let mut results = gridsched_repro::reproduce(&[exp], &opts, Some(&project))?;
        let result = results
            .pop()
            .ok_or_else(|| anyhow::anyhow!("internal error: no result for {id}"))?;
        let files: Vec<String> = result
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        let claims: Vec<[String; 7]> = result
            .claims
            .iter()
            .map(|c| {
                [
                    c.id.clone(),
                    c.verdict.as_str().to_string(),
                    c.kind.as_str().to_string(),
                    c.soft.to_string(),
                    c.summary.clone(),
                    c.if_fails.clone().unwrap_or_default(),
                    c.quote.clone(),
                ]
            })
            .collect();
        Ok((exp.spec.id.clone(), files, claims))
    })?;
    let list = PyList::empty(py);
    for [id, verdict, kind, soft, summary, reason, quote] in claims {
        let d = PyDict::new(py);
        d.set_item("claim", id)?;
        d.set_item("verdict", verdict)?;
        d.set_item("kind", kind)?;
        d.set_item("soft", soft == "true")?;
        d.set_item("summary", summary)?;
        d.set_item("reason", (!reason.is_empty()).then_some(reason))?;
        d.set_item("quote", quote)?;
        list.append(d)?;
    }
    Ok((full_id, files, list))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("GridschedError", m.py().get_type::<GridschedError>())?;
    m.add_class::<Round>()?;
    m.add_function(wrap_pyfunction!(run_command, m)?)?;
    m.add_function(wrap_pyfunction!(replay_builtin, m)?)?;
    m.add_function(wrap_pyfunction!(replay_policy, m)?)?;
    m.add_function(wrap_pyfunction!(read_swf, m)?)?;
    m.add_function(wrap_pyfunction!(experiments, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce, m)?)?;
    Ok(())
}
