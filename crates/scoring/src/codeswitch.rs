//! Code-switching measurements (being written).
