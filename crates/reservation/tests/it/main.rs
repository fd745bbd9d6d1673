//! The integration tests of `gridsched-reservation`, one module per test file, in one test binary:
//! the crate and its dependencies are linked, and the generic code the tests use is compiled, once
//! instead of once per file (docs/benchmarks.md, "Build and test time").
//! One file's tests: `cargo test -p gridsched-reservation --test it <module>::`.

mod allocations;
mod chooser;
mod coalloc;
mod fixtures;
mod hetero;
mod hetero_timing;
mod identity;
mod properties;
