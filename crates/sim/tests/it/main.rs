//! The integration tests of `gridsched-sim`, one module per test file, in one test binary: the
//! crate and its dependencies are linked, and the generic code the tests use is compiled, once
//! instead of once per file (docs/benchmarks.md, "Build and test time").
//! One file's tests: `cargo test -p gridsched-sim --test it <module>::`.
//!
//! Proptest finds this `main.rs` above the modules, so it keeps their failing cases in
//! `tests/proptest-regressions/<module>.txt`, not beside the module's source.
//!
//! `tests/cancel.rs` stays a binary of its own: it raises the process-wide cancellation flag, which
//! would stop the simulations of the tests running beside it here.

mod actors;
mod fmt;
