//! Local token estimates with tiktoken's `o200k_base`, for TPM reservations and for usage when a
//! server reports none.
//!
//! The encoder is loaded once per process (about half a second in debug builds) and only when an
//! estimate is actually needed. If it cannot be loaded, a four-characters-per-token rule keeps
//! the estimate usable.

use std::sync::LazyLock;

use tiktoken_rs::CoreBPE;

use crate::Message;

static O200K: LazyLock<Option<CoreBPE>> = LazyLock::new(|| match tiktoken_rs::o200k_base() {
    Ok(bpe) => Some(bpe),
    Err(e) => {
        tracing::warn!(error = %e, "tiktoken o200k_base unavailable, estimating 4 chars per token");
        None
    }
});

/// Tokens in `text`.
#[must_use]
pub fn count_tokens(text: &str) -> u64 {
    match O200K.as_ref() {
        Some(bpe) => bpe.encode_ordinary(text).len() as u64,
        None => text.chars().count().div_ceil(4) as u64,
    }
}

/// Tokens of a prompt: content plus the few tokens of per-message framing chat formats add.
#[must_use]
pub fn count_prompt_tokens(messages: &[Message]) -> u64 {
    const PER_MESSAGE: u64 = 4;
    messages
        .iter()
        .map(|m| {
            let calls: u64 = m
                .tool_calls
                .iter()
                .map(|c| count_tokens(&c.name) + count_tokens(&c.arguments.to_string()))
                .sum();
            PER_MESSAGE + count_tokens(&m.content) + calls
        })
        .sum::<u64>()
        + 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_plausible() {
        assert_eq!(count_tokens(""), 0);
        let n = count_tokens("Hello world, this is a short sentence.");
        assert!((5..=12).contains(&n), "{n}");
        let p = count_prompt_tokens(&[Message::system("Be brief."), Message::user("Hi")]);
        assert!(p > count_tokens("Be brief.") + count_tokens("Hi"));
    }
}
