//! The integration tests of `gridsched-geom`, one module per test file, in one test binary: the
//! crate and its dependencies are linked, and the generic code the tests use is compiled, once
//! instead of once per file (docs/benchmarks.md, "Build and test time").
//! One file's tests: `cargo test -p gridsched-geom --test it <module>::`.
//!
//! Proptest finds this `main.rs` above the modules, so it keeps their failing cases in
//! `tests/proptest-regressions/<module>.txt`, not beside the module's source.

mod coalloc;
mod fixtures;
mod hetero;
mod hetero_blocks;
mod hetero_lists;
mod identity;
mod literal_best_fit;
