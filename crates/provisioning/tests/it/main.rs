//! The integration tests of `gridsched-provisioning`, one module per test file, in one test binary:
//! the crate and its dependencies are linked, and the generic code the tests use is compiled, once
//! instead of once per file (docs/benchmarks.md, "Build and test time").
//! One file's tests: `cargo test -p gridsched-provisioning --test it <module>::`.
//!
//! Proptest finds this `main.rs` above the modules, so it keeps their failing cases in
//! `tests/proptest-regressions/<module>.txt`, not beside the module's source.

mod besteffort;
mod figure2;
mod greedy;
mod plan;
mod pricing;
mod var;
