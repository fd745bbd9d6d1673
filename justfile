# Thin wrappers over cargo and the gridsched CLI; everything also works without `just`.

# List the recipes.
default:
    @just --list

# Unit, property, golden and snapshot tests (the command CI runs).
test:
    cargo test --workspace

# Regenerate figures: `just reproduce fig-3.4`, `just reproduce --all --scale paper`.
reproduce *ARGS:
    cargo reproduce {{ARGS}}

# One experiment at the document's own scale.
paper ID:
    cargo reproduce {{ID}} --scale paper

# Rewrite REPRODUCTION.md from the results in data/.
report:
    cargo gridsched report

# Criterion benchmarks (tree indexes vs linear scans).
bench *ARGS:
    cargo bench --workspace {{ARGS}}

# List every experiment.
list:
    cargo gridsched list

# Review snapshot changes after an intended change of numbers (needs cargo-insta).
review:
    cargo insta review

# Format and lint.
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings

# Everything CI runs.
ci:
    .ci/run
