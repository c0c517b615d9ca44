//! The keys a reader accepts, as the reader itself names them.

use serde::de::DeserializeOwned;
use serde::de::value::{Error, MapDeserializer};

/// The keys a `deny_unknown_fields` reader names when it refuses an unknown one (serde's
/// "unknown field …, expected one of `a`, `b`"), in the reader's order: the one source a
/// hand-written key list (a JSON Schema's, a hint's) can be checked against so it cannot drift.
/// `None` when `T` takes the probe key (it refuses no unknown key) or names none.
#[must_use]
pub fn keys_refusing_others<T: DeserializeOwned>() -> Option<Vec<String>> {
    const PROBE: &str = "zz_unknown_key_probe";
    let map = MapDeserializer::<_, Error>::new(std::iter::once((PROBE, 1_u8)));
    let Err(e) = T::deserialize(map) else {
        return None;
    };
    let e = e.to_string();
    let after = e.split(&format!("unknown field `{PROBE}`")).nth(1)?;
    let keys: Vec<String> = after
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    (!keys.is_empty()).then_some(keys)
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::keys_refusing_others;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Strict {
        alpha: Option<u8>,
        #[serde(rename = "betaKey")]
        beta: Option<u8>,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Loose {
        alpha: Option<u8>,
    }

    #[test]
    fn a_strict_reader_names_its_keys_and_a_loose_one_none() {
        assert_eq!(
            keys_refusing_others::<Strict>(),
            Some(vec!["alpha".to_owned(), "betaKey".to_owned()])
        );
        assert_eq!(keys_refusing_others::<Loose>(), None);
    }
}
