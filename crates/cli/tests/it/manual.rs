//! `gridsched completions` and `gridsched man`: generated from the clap definitions, written to
//! standard output or, for the man pages, all into a directory.

use crate::common::{gridsched, text};

#[test]
fn completion_scripts_know_the_commands_and_their_options() {
    let bash = gridsched(&["completions", "bash"]);
    assert!(bash.status.success(), "{}", text(&bash.stderr));
    let script = text(&bash.stdout);
    assert!(script.contains("_gridsched()"), "{script}");
    for word in ["reproduce", "coalloc", "--policy", "--shard"] {
        assert!(script.contains(word), "bash completion lacks {word}");
    }
    let zsh = gridsched(&["completions", "zsh"]);
    assert!(text(&zsh.stdout).starts_with("#compdef gridsched"));
    let fish = gridsched(&["completions", "fish"]);
    assert!(text(&fish.stdout).contains("complete -c gridsched"));
    let bad = gridsched(&["completions", "tcsh"]);
    assert!(!bad.status.success());
    assert!(text(&bad.stderr).contains("tcsh"), "{}", text(&bad.stderr));
}

#[test]
fn man_pages_cover_every_command() {
    let page = gridsched(&["man"]);
    assert!(page.status.success(), "{}", text(&page.stderr));
    assert!(text(&page.stdout).contains(".TH gridsched 1"));

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man1");
    let run = gridsched(&["man", "--out-dir", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    for name in [
        "gridsched",
        "gridsched-replay",
        "gridsched-reproduce",
        "gridsched-schedule-reservation",
        "gridsched-trace-info",
    ] {
        let body = std::fs::read_to_string(out.join(format!("{name}.1")))
            .unwrap_or_else(|e| panic!("{name}.1: {e}"));
        assert!(body.contains(&format!(".TH {name} 1")), "{name}.1");
    }
    let replay = std::fs::read_to_string(out.join("gridsched-replay.1")).unwrap();
    assert!(replay.contains("policy"), "replay's page lists its options");
}

#[test]
fn man_pages_are_all_or_nothing() {
    // A directory that cannot be created (its parent is a file): an error, nothing written.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    let target = file.join("man1");
    let run = gridsched(&["man", "--out-dir", target.to_str().unwrap()]);
    assert!(!run.status.success());
    assert!(text(&run.stderr).contains("plain"), "{}", text(&run.stderr));
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
}
