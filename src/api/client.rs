//! Who a request comes from, for quotas: its API key (`X-API-Key`), else its address — the
//! peer's, or, when the peer is a trusted proxy, the last address in `X-Forwarded-For` that is
//! not itself a trusted proxy.

use std::net::IpAddr;

use actix_web::HttpRequest;

use crate::{
    admission::ClientKey,
    api::error::{ApiError, ErrorCode},
    config::AuthConfig,
};

/// The header carrying an API key.
pub const API_KEY_HEADER: &str = "x-api-key";

/// The client of a request. An unknown API key is refused; so is a request without one when
/// `required` (creating games and jobs with `auth.require_api_key`).
pub fn client_key(
    req: &HttpRequest,
    auth: &AuthConfig,
    required: bool,
) -> Result<ClientKey, ApiError> {
    if let Some(value) = req.headers().get(API_KEY_HEADER) {
        let given = value.as_bytes();
        return auth
            .api_keys
            .iter()
            .find(|k| constant_time_eq::constant_time_eq(k.as_bytes(), given))
            .map(|k| ClientKey::ApiKey(k.as_str().into()))
            .ok_or_else(|| ApiError::new(ErrorCode::ApiKeyRequired, "unknown API key"));
    }
    if required && auth.require_api_key {
        return Err(ApiError::new(
            ErrorCode::ApiKeyRequired,
            "this server needs an API key (X-API-Key header) to create games and jobs",
        ));
    }
    Ok(ClientKey::Address(client_address(
        req,
        &auth.trusted_proxies,
    )))
}

/// The client's address: the peer, unless the peer is a trusted proxy (see the module doc).
pub fn client_address(req: &HttpRequest, trusted: &[IpAddr]) -> IpAddr {
    let peer = req
        .peer_addr()
        .map(|a| a.ip())
        .unwrap_or(IpAddr::from([0, 0, 0, 0]));
    forwarded_client(peer, trusted, req.headers().get_all("x-forwarded-for"))
}

/// Walks `X-Forwarded-For` from the nearest hop back while the hop is a trusted proxy.
fn forwarded_client<'a>(
    peer: IpAddr,
    trusted: &[IpAddr],
    headers: impl Iterator<Item = &'a actix_web::http::header::HeaderValue>,
) -> IpAddr {
    if !trusted.contains(&peer) {
        return peer;
    }
    let hops: Vec<IpAddr> = headers
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .map(|hop| hop.parse::<IpAddr>().ok())
        .collect::<Option<Vec<_>>>()
        // A malformed header was not written by our proxy alone: count the request against the proxy.
        .unwrap_or_default();
    let mut client = peer;
    for hop in hops.into_iter().rev() {
        client = hop;
        if !trusted.contains(&hop) {
            break;
        }
    }
    client
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::HeaderValue;

    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn client(peer: &str, trusted: &[&str], xff: &[&str]) -> IpAddr {
        let trusted: Vec<IpAddr> = trusted.iter().map(|s| ip(s)).collect();
        let headers: Vec<HeaderValue> = xff
            .iter()
            .map(|h| HeaderValue::from_str(h).unwrap())
            .collect();
        forwarded_client(ip(peer), &trusted, headers.iter())
    }

    #[test]
    fn forwarded_for_is_believed_only_from_trusted_proxies() {
        // An untrusted peer cannot claim another address.
        assert_eq!(client("127.0.0.9", &[], &["10.0.0.1"]), ip("127.0.0.9"));
        assert_eq!(
            client("127.0.0.9", &["127.0.0.1"], &["10.0.0.1"]),
            ip("127.0.0.9")
        );
        // A trusted proxy names the client; a client-supplied prefix is ignored.
        assert_eq!(
            client("127.0.0.1", &["127.0.0.1"], &["10.0.0.1"]),
            ip("10.0.0.1")
        );
        assert_eq!(
            client("127.0.0.1", &["127.0.0.1"], &["6.6.6.6, 10.0.0.1"]),
            ip("10.0.0.1")
        );
        // Two trusted proxies in a row.
        assert_eq!(
            client(
                "127.0.0.1",
                &["127.0.0.1", "127.0.0.2"],
                &["10.0.0.1", "127.0.0.2"]
            ),
            ip("10.0.0.1")
        );
        // No header, or a malformed one: the proxy itself.
        assert_eq!(client("127.0.0.1", &["127.0.0.1"], &[]), ip("127.0.0.1"));
        assert_eq!(
            client("127.0.0.1", &["127.0.0.1"], &["junk"]),
            ip("127.0.0.1")
        );
    }
}
