//! Who a request comes from, for quotas: its API key (`X-API-Key`), else its address — the
//! peer's, or, when the peer is a trusted proxy, the last address in `X-Forwarded-For` that is
//! not itself a trusted proxy.

use std::net::IpAddr;

use actix_web::HttpRequest;

use crate::{
    admission::ClientKey,
    api::{
        bearer,
        error::{ApiError, ErrorCode},
    },
    config::AuthConfig,
};

/// The header carrying an API key.
pub(crate) const API_KEY_HEADER: &str = "x-api-key";

/// The header a forwarded request carries (the forwarding node's id).
pub(crate) const FORWARDED: &str = "x-chessd-forwarded";

/// The header in which a cluster node that forwards a request names the client it resolved.
pub(crate) const FORWARDED_CLIENT: &str = "x-chessd-client";

/// The header proving [`FORWARDED_CLIENT`]: an HMAC-SHA256, under the cluster's secret, of the
/// forwarding node, the client, the method and the path (hex).
pub(crate) const FORWARDED_CLIENT_PROOF: &str = "x-chessd-client-proof";

/// The proof of `client` for a request `method path` forwarded by `node`.
pub(crate) fn client_proof(
    secret: &[u8],
    node: &str,
    client: &str,
    method: &str,
    path: &str,
) -> String {
    use hmac::Mac;
    let Ok(mut mac) = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret) else {
        return String::new();
    };
    for part in [node, client, method, path] {
        mac.update(part.as_bytes());
        mac.update(b"\n");
    }
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The client another node of the cluster resolved for a request it forwarded, when the
/// request proves it under the cluster's `secret`.
pub(crate) fn proven_client(req: &HttpRequest, secret: &[u8]) -> Option<IpAddr> {
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok());
    let node = header(FORWARDED)?;
    let client = header(FORWARDED_CLIENT)?;
    let proof = header(FORWARDED_CLIENT_PROOF)?;
    let path = req
        .uri()
        .path_and_query()
        .map_or(req.path(), |p| p.as_str());
    let expected = client_proof(secret, node, client, req.method().as_str(), path);
    constant_time_eq::constant_time_eq(expected.as_bytes(), proof.as_bytes())
        .then(|| client.parse().ok())
        .flatten()
}

/// The client of a request. An unknown API key is refused; so is a request without one when
/// `required` (creating games and jobs with `auth.require_api_key`).
pub(crate) fn client_key(
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
    // Forwarded by another node of the cluster: the client that node resolved, when proven.
    let secret = req
        .app_data::<actix_web::web::Data<crate::AppState>>()
        .and_then(|state| state.cluster.as_ref().map(|c| c.secret().to_vec()));
    if let Some(client) = secret.and_then(|secret| proven_client(req, &secret)) {
        return Ok(ClientKey::Address(client));
    }
    Ok(ClientKey::Address(network_of(
        client_address(req, &auth.trusted_proxies),
        auth,
    )))
}

/// The network an address counts as, for quotas: its first `client_ipv4_prefix` (IPv4, and
/// IPv4 mapped into IPv6) or `client_ipv6_prefix` (IPv6) bits, the rest zero.
pub(crate) fn network_of(address: IpAddr, auth: &AuthConfig) -> IpAddr {
    fn keep(bits: u128, width: u32, prefix: u8) -> u128 {
        let prefix = u32::from(prefix).min(width);
        if prefix == 0 {
            return 0;
        }
        let mask = (u128::MAX << (width - prefix)) & (u128::MAX >> (128 - width));
        bits & mask
    }
    match address {
        IpAddr::V4(v4) => {
            let kept = keep(u128::from(u32::from(v4)), 32, auth.client_ipv4_prefix);
            IpAddr::V4(std::net::Ipv4Addr::from(kept as u32))
        }
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => network_of(IpAddr::V4(v4), auth),
            None => IpAddr::V6(std::net::Ipv6Addr::from(keep(
                u128::from(v6),
                128,
                auth.client_ipv6_prefix,
            ))),
        },
    }
}

/// Whether the request is the operator's: it carries the operator token, or (with
/// `auth.loopback_is_operator`) its client is on this machine's loopback.
pub(crate) fn is_operator(req: &HttpRequest, auth: &AuthConfig) -> bool {
    if let (Some(operator), Some(given)) = (auth.operator_token(), bearer(req)) {
        if constant_time_eq::constant_time_eq(operator.as_bytes(), given.as_bytes()) {
            return true;
        }
    }
    auth.loopback_is_operator && client_address(req, &auth.trusted_proxies).is_loopback()
}

/// Refuses a request that is not the operator's ([`is_operator`]).
pub(crate) fn require_operator(req: &HttpRequest, auth: &AuthConfig) -> Result<(), ApiError> {
    if is_operator(req, auth) {
        return Ok(());
    }
    Err(ApiError::refused(
        bearer(req).is_some(),
        "this route is the server operator's: send the operator token (Authorization: Bearer \
         <auth.operator_token>)",
    ))
}

/// The client's address: the peer, unless the peer is a trusted proxy (see the module doc).
pub(crate) fn client_address(req: &HttpRequest, trusted: &[IpAddr]) -> IpAddr {
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
    fn a_proof_binds_the_client_to_the_node_the_request_and_the_secret() {
        let proof = client_proof(b"secret", "node-a", "10.0.0.1", "POST", "/v1/games/x/moves");
        assert_eq!(proof.len(), 64);
        assert_eq!(
            proof,
            client_proof(b"secret", "node-a", "10.0.0.1", "POST", "/v1/games/x/moves")
        );
        for other in [
            client_proof(b"other", "node-a", "10.0.0.1", "POST", "/v1/games/x/moves"),
            client_proof(b"secret", "node-b", "10.0.0.1", "POST", "/v1/games/x/moves"),
            client_proof(b"secret", "node-a", "10.0.0.2", "POST", "/v1/games/x/moves"),
            client_proof(b"secret", "node-a", "10.0.0.1", "GET", "/v1/games/x/moves"),
            client_proof(b"secret", "node-a", "10.0.0.1", "POST", "/v1/games/y/moves"),
        ] {
            assert_ne!(proof, other);
        }
    }

    #[test]
    fn addresses_count_by_their_network() {
        let mut auth = crate::config::Config::defaults().auth;
        let net = |s: &str, auth: &AuthConfig| network_of(ip(s), auth);
        // The defaults: each IPv4 address, each IPv6 /64.
        assert_eq!(net("10.1.2.3", &auth), ip("10.1.2.3"));
        assert_eq!(net("2001:db8:1:2:aaaa::1", &auth), ip("2001:db8:1:2::"));
        assert_eq!(net("2001:db8:1:2:bbbb::9", &auth), ip("2001:db8:1:2::"));
        assert_ne!(net("2001:db8:1:3::1", &auth), ip("2001:db8:1:2::"));
        // IPv4 mapped into IPv6 counts as IPv4.
        assert_eq!(net("::ffff:10.1.2.3", &auth), ip("10.1.2.3"));
        auth.client_ipv4_prefix = 24;
        auth.client_ipv6_prefix = 48;
        assert_eq!(net("10.1.2.3", &auth), ip("10.1.2.0"));
        assert_eq!(net("::ffff:10.1.2.3", &auth), ip("10.1.2.0"));
        assert_eq!(net("2001:db8:1:2::1", &auth), ip("2001:db8:1::"));
        auth.client_ipv4_prefix = 0;
        assert_eq!(net("10.1.2.3", &auth), ip("0.0.0.0"));
        auth.client_ipv6_prefix = 128;
        assert_eq!(net("2001:db8::1", &auth), ip("2001:db8::1"));
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
