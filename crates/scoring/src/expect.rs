//! Bot-test expectations: declarative checks over a transcript (being written).
