//! Bots under test (being written).
