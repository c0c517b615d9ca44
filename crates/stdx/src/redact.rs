//! Credentials out of URLs: a base URL may carry `user:password@` or a key in its query string
//! (`?api-key=…`, `?token=…`), and every place that prints or logs a URL goes through
//! [`redact_url`] first.

/// What replaces a credential.
const HIDDEN: &str = "[redacted]";

/// Query parameter names (compared in lowercase, `-`/`_` ignored) whose values are credentials.
const SECRET_PARAMS: [&str; 12] = [
    "key",
    "apikey",
    "token",
    "accesstoken",
    "secret",
    "clientsecret",
    "password",
    "pass",
    "pwd",
    "sig",
    "signature",
    "auth",
];

/// `url` with its user information (`user:password@`) and the values of key-like query
/// parameters replaced by `[redacted]`; everything else, including the host and the path, is
/// kept so the user can still tell which endpoint is meant. Text that is not a URL comes back
/// unchanged.
#[must_use]
pub fn redact_url(url: &str) -> String {
    let (scheme, rest) = match url.find("://") {
        Some(i) => url.split_at(i + 3),
        None => ("", url),
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rfind('@') {
        Some(at) => format!("{HIDDEN}@{}", &authority[at + 1..]),
        None => authority.to_owned(),
    };
    let (path, query_and_fragment) = match tail.find('?') {
        Some(q) => tail.split_at(q),
        None => (tail, ""),
    };
    let mut out = format!("{scheme}{authority}{path}");
    if let Some(query) = query_and_fragment.strip_prefix('?') {
        let (query, fragment) = match query.find('#') {
            Some(h) => query.split_at(h),
            None => (query, ""),
        };
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) if is_secret(name) => format!("{name}={HIDDEN}"),
                _ => pair.to_owned(),
            })
            .collect();
        out.push('?');
        out.push_str(&pairs.join("&"));
        out.push_str(fragment);
    }
    out
}

/// `text` with every `http://` / `https://` URL in it passed through [`redact_url`]: for error
/// messages of the HTTP stack, which quote the request URL.
#[must_use]
pub fn redact_urls_in(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = ["http://", "https://"]
        .iter()
        .filter_map(|scheme| rest.find(scheme))
        .min()
    {
        out.push_str(&rest[..start]);
        let url = &rest[start..];
        let end = url
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | '"' | '\'' | '>' | ','))
            .unwrap_or(url.len());
        out.push_str(&redact_url(&url[..end]));
        rest = &url[end..];
    }
    out.push_str(rest);
    out
}

fn is_secret(name: &str) -> bool {
    let normal: String = name
        .chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect();
    SECRET_PARAMS.contains(&normal.as_str()) || normal.ends_with("key") || normal.ends_with("token")
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn user_information_is_hidden() {
        assert_eq!(
            redact_url("https://alice:s3cret@proxy.example.com:8443/v1"),
            "https://[redacted]@proxy.example.com:8443/v1"
        );
        assert_eq!(
            redact_url("http://token@host/v1?x=1"),
            "http://[redacted]@host/v1?x=1"
        );
        // An `@` in the path is not user information.
        assert_eq!(redact_url("http://h/v1/@me"), "http://h/v1/@me");
    }

    #[test]
    fn key_like_query_parameters_are_hidden() {
        assert_eq!(
            redact_url("https://r.openai.azure.com/openai?api-version=2024-06-01&api-key=abc#top"),
            "https://r.openai.azure.com/openai?api-version=2024-06-01&api-key=[redacted]#top"
        );
        assert_eq!(
            redact_url("http://h/v1?key=k&access_token=t&sig=s&model=m"),
            "http://h/v1?key=[redacted]&access_token=[redacted]&sig=[redacted]&model=m"
        );
    }

    #[test]
    fn urls_inside_error_messages_are_redacted() {
        assert_eq!(
            super::redact_urls_in(
                "error sending request for url (http://h:9/v1?api-key=sk-1/chat/completions): refused"
            ),
            "error sending request for url (http://h:9/v1?api-key=[redacted]): refused"
        );
        assert_eq!(super::redact_urls_in("no url here"), "no url here");
    }

    #[test]
    fn plain_urls_and_non_urls_are_unchanged() {
        for text in [
            "https://api.openai.com/v1",
            "http://127.0.0.1:8080/v1",
            "not a url",
            "",
        ] {
            assert_eq!(redact_url(text), text);
        }
    }
}
