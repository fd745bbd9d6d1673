//! `gridsched`: reproduce the figures of five grid-scheduling documents, and run their
//! schedulers on your own inputs. The commands live in the library (`src/lib.rs`).

fn main() -> std::process::ExitCode {
    gridsched_cli::main()
}
