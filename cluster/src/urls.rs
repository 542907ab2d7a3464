//! `--cluster URL[,URL...]`: the workers, each an `http://HOST:PORT` URL as
//! `sextant worker` prints it (the engine's gRPC client speaks plain
//! HTTP/2 here: no TLS is built in).

use url::Url;

use crate::ClusterError;

/// The workers a `--cluster` value names, in its order.
pub fn parse(list: &str) -> Result<Vec<Url>, ClusterError> {
    let mut urls = Vec::new();
    for item in list.split(',').map(str::trim) {
        if item.is_empty() {
            return Err(ClusterError::Urls(format!(
                "'{list}': an empty worker URL (expected URL[,URL...])"
            )));
        }
        let url = Url::parse(item).map_err(|e| {
            ClusterError::Urls(format!("'{item}': {e} (expected http://HOST:PORT)"))
        })?;
        if url.scheme() != "http" || url.host().is_none() || url.port_or_known_default().is_none() {
            return Err(ClusterError::Urls(format!(
                "'{item}': expected http://HOST:PORT, as sextant worker prints it"
            )));
        }
        if !urls.contains(&url) {
            urls.push(url);
        }
    }
    Ok(urls)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_of_http_urls_parse_and_the_rest_is_said() {
        let urls = parse("http://127.0.0.1:5001, http://h:5002/,http://127.0.0.1:5001").unwrap();
        let said: Vec<&str> = urls.iter().map(Url::as_str).collect();
        assert_eq!(said, ["http://127.0.0.1:5001/", "http://h:5002/"]);
        let err = |s: &str| parse(s).unwrap_err().to_string();
        assert!(err("127.0.0.1:5001").contains("127.0.0.1:5001"));
        assert!(err("https://h:1").contains("expected http://HOST:PORT"));
        assert!(err("http://h:1,").contains("empty worker URL"));
        assert!(err("").contains("empty worker URL"));
    }
}
