//! The code-switching data pipeline (being written).
