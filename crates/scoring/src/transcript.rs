//! The bot turns a scenario produced, as evaluated by `expect` (being written).
