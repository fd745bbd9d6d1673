//! `gridsched`: reproduce the figures of five grid-scheduling documents, and run their
//! schedulers on your own inputs. The commands live in the library (`src/lib.rs`).

fn main() -> std::process::ExitCode {
    // An interrupt (or a batch system's SIGTERM) ends the process without destructors: remove
    // the outputs' staged temporary files first, so none is left beside an output. Installed
    // by the binary only: a front end that embeds the library (Python) keeps its own handler.
    let _ = ctrlc::set_handler(|| {
        gridsched_repro::output::remove_temporary_files();
        std::process::exit(130);
    });
    gridsched_cli::main()
}
