//! What every CLI test module needs: run the built binary, read its output as text.

use std::ffi::OsStr;
use std::process::{Command, Output};

/// Runs the `gridsched` binary cargo built for these tests.
pub fn gridsched<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gridsched"))
        .args(args)
        .output()
        .expect("run gridsched")
}

/// A captured stream as text (lossy: a test message must never fail to print).
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
