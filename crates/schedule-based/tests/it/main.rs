//! The integration tests of `gridsched-schedule-based`, one module per test file, in one test
//! binary: the crate and its dependencies are linked, and the generic code the tests use is
//! compiled, once instead of once per file (docs/benchmarks.md, "Build and test time").
//! One file's tests: `cargo test -p gridsched-schedule-based --test it <module>::`.
//!
//! Proptest finds this `main.rs` above the modules, so it keeps their failing cases in
//! `tests/proptest-regressions/<module>.txt`, not beside the module's source.

mod alea_single_machine;
mod invariants;
mod per_cpu_oracle;
mod tie_break;
