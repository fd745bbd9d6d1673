//! Experiment entries live in the TOML files of this directory.
