//! The integration tests of `gridsched-hierarchical`, one module per test file, in one test binary:
//! the crate and its dependencies are linked, and the generic code the tests use is compiled, once
//! instead of once per file (docs/benchmarks.md, "Build and test time").
//! One file's tests: `cargo test -p gridsched-hierarchical --test it <module>::`.
//!
//! `common` holds the helpers the modules share (`crate::common`).

mod common;

mod fallback;
mod h1;
mod hybrid;
mod network;
mod p2p;
mod table1;
