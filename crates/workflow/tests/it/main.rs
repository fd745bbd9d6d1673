//! The integration tests of `gridsched-workflow`, one module per test file, in one test binary: the
//! crate and its dependencies are linked, and the generic code the tests use is compiled, once
//! instead of once per file (docs/benchmarks.md, "Build and test time").
//! One file's tests: `cargo test -p gridsched-workflow --test it <module>::`.

mod generators;
mod heft;
mod malformed;
mod readers;
