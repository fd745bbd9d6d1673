//! The models behind the experiment entries, one module per document chapter.

pub mod batch_replay;
pub mod castillo_ch3;
pub mod castillo_ch4;
pub mod castillo_ch5;
pub mod kumar;
