//! Castillo (2008), "On the Design of Efficient Resource Allocation Mechanisms for Grids":
//! the models behind `experiments/castillo/*.toml`, one module per chapter.

use gridsched_repro::model::Model;
use gridsched_repro::papers::Paper;

pub mod ch3;
pub mod ch4;
pub mod ch5;

/// The document.
pub static PAPER: Paper = Paper {
    key: "castillo",
    seed: "000",
    citation: "C. Castillo, \"On the Design of Efficient Resource Allocation Mechanisms for Grids\", PhD thesis, NC State University, 2008",
    short: "Castillo 2008",
    spec: "castillo-reservations.md",
};

/// The models its entries use.
pub fn models() -> Vec<Box<dyn Model>> {
    vec![
        Box::new(ch3::CastilloCh3),
        Box::new(ch4::CastilloCh4),
        Box::new(ch5::CastilloCh5),
    ]
}
