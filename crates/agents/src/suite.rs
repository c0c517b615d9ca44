//! Bot test suites (being written).
