//! The integration tests of `gridsched`, one module per test file, in one test binary: the crate
//! and its dependencies are linked, and the generic code the tests use is compiled, once instead of
//! once per file (docs/benchmarks.md, "Build and test time").
//! One file's tests: `cargo test -p gridsched --test it <module>::`.
//!
//! `common` holds the helpers the modules share (`crate::common`).

mod common;

mod cli;
mod coalloc;
mod faults;
mod grid;
mod hetero;
mod hierarchy;
mod hostile;
mod limits;
mod manual;
mod map;
mod outputs;
mod price;
mod provision;
mod replay;
mod streamed_logs;
mod trace;
