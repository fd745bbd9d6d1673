//! Mapping independent tasks onto heterogeneous machines from an ETC (expected time to compute)
//! matrix: Kumar (2010)'s Segmented Average-Sufferage and the heuristics it is compared with.
