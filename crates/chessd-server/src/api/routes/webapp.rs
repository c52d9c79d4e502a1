//! The web client: the files of `web/`, compiled into the binary and served at `/`.
//!
//! The pages are not part of the API: they are served by the fallback service ([`fallback`]),
//! which only sees requests that no API route matched. So `/v1/…`, `/health`, `/metrics` and
//! `/openapi.json` can never be shadowed, and an unknown `/v1` route still gets the JSON
//! `not_found`. Every file is embedded with `include_bytes!` (the binary works from any
//! directory); a unit test checks that every file of `web/` is in [`ASSETS`] and nothing else (but
//! the type checker's and the unit tests' files, which the browser never loads).

use actix_web::{
    http::{header, Method},
    HttpRequest, HttpResponse,
};

use crate::api::error::{ApiError, ErrorCode};

/// One embedded file of `web/`.
#[derive(Debug)]
pub struct Asset {
    /// Path under `web/` (and under `/` on the server).
    pub path: &'static str,
    /// The `Content-Type` it is served with.
    pub content_type: &'static str,
    /// The file's bytes.
    pub body: &'static [u8],
    /// Strong entity tag: a hash of the bytes, computed at compile time.
    pub etag: &'static str,
}

/// 64-bit FNV-1a of `bytes`, usable in constants.
const fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    hash
}

/// `"` + 16 hex digits + `"`, as a fixed-size array (built at compile time).
const fn etag_bytes(bytes: &[u8]) -> [u8; 18] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let hash = fnv1a(bytes);
    let mut out = [b'"'; 18];
    let mut i = 0;
    while i < 16 {
        out[1 + i] = HEX[((hash >> (60 - 4 * i)) & 0xf) as usize];
        i += 1;
    }
    out
}

/// Declares an embedded file: `asset!("js/app.js", "text/javascript; charset=utf-8")`.
macro_rules! asset {
    ($path:literal, $content_type:expr) => {{
        const BODY: &[u8] =
            include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../web/", $path));
        const TAG: [u8; 18] = etag_bytes(BODY);
        Asset {
            path: $path,
            content_type: $content_type,
            body: BODY,
            etag: match std::str::from_utf8(&TAG) {
                Ok(s) => s,
                Err(_) => panic!("hex is ASCII"),
            },
        }
    }};
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const SVG: &str = "image/svg+xml";

/// Every file of `web/` that the browser loads.
pub static ASSETS: &[Asset] = &[
    asset!("index.html", HTML),
    asset!("favicon.svg", SVG),
    asset!("css/style.css", CSS),
    asset!("js/api.js", JS),
    asset!("js/analysis-logic.js", JS),
    asset!("js/app.js", JS),
    asset!("js/board.js", JS),
    asset!("js/chess.js", JS),
    asset!("js/chess2.js", JS),
    asset!("js/chess2-armies.js", JS),
    asset!("js/chess2-duels.js", JS),
    asset!("js/chess2-notation.js", JS),
    asset!("js/chess2-pieces.js", JS),
    asset!("js/dom.js", JS),
    asset!("js/format.js", JS),
    asset!("js/game.js", JS),
    asset!("js/game-analysis.js", JS),
    asset!("js/game-chat.js", JS),
    asset!("js/game-clock.js", JS),
    asset!("js/game-controller.js", JS),
    asset!("js/game-export.js", JS),
    asset!("js/game-state.js", JS),
    asset!("js/game-view.js", JS),
    asset!("js/lobby.js", JS),
    asset!("js/perft.js", JS),
    asset!("js/pieces.js", JS),
    asset!("js/players.js", JS),
    asset!("js/premove.js", JS),
    asset!("js/puzzle-samples.js", JS),
    asset!("js/puzzles.js", JS),
    asset!("js/seeks.js", JS),
    asset!("js/engine-sessions.js", JS),
    asset!("js/sounds.js", JS),
    asset!("js/theme.js", JS),
    asset!("js/watch.js", JS),
];

/// The page's Content-Security-Policy: everything from this server only, nothing from the
/// internet (inline style attributes are allowed for the board's drag layer).
const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; \
                   connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The asset served for a request path (`/` is `index.html`).
pub fn find(path: &str) -> Option<&'static Asset> {
    let path = path.strip_prefix('/')?;
    let path = if path.is_empty() { "index.html" } else { path };
    ASSETS.iter().find(|a| a.path == path)
}

/// The fallback service: a page file for `GET`/`HEAD` of a known path, `405` for another
/// method on it, and the JSON `not_found` for everything else.
pub async fn fallback(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let Some(asset) = find(req.path()) else {
        return Err(ApiError::new(
            ErrorCode::NotFound,
            format!("no route for {} {}", req.method(), req.path()),
        ));
    };
    let head = req.method() == Method::HEAD;
    if req.method() != Method::GET && !head {
        return Err(ApiError::new(
            ErrorCode::MethodNotAllowed,
            format!("{} is not allowed on {}", req.method(), req.path()),
        ));
    }
    let fresh = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|t| t.trim() == asset.etag || t.trim() == "*")
        });
    let mut res = if fresh {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    res.insert_header((header::ETAG, asset.etag))
        // Revalidate every time (cheap: 304 with the ETag), so a new binary is picked up at once.
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
    if asset.content_type == HTML {
        res.insert_header((header::CONTENT_SECURITY_POLICY, CSP))
            .insert_header((header::REFERRER_POLICY, "no-referrer"));
    }
    if fresh {
        return Ok(res.finish());
    }
    // For HEAD, actix sends the headers (Content-Length included) without the body.
    Ok(res.content_type(asset.content_type).body(asset.body))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `web/` holds for the client's own checks (type checker, unit tests), not for the
    /// browser: never embedded.
    const NOT_SERVED: &[&str] = &[
        "node_modules",
        "package.json",
        "package-lock.json",
        "test",
        "tsconfig.json",
    ];

    fn files_under(dir: &std::path::Path, prefix: &str, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("web/ is readable") {
            let entry = entry.expect("a directory entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || (prefix.is_empty() && NOT_SERVED.contains(&name.as_str())) {
                continue;
            }
            let path = format!("{prefix}{name}");
            if entry.file_type().expect("a file type").is_dir() {
                files_under(&entry.path(), &format!("{path}/"), out);
            } else {
                out.push(path);
            }
        }
    }

    #[test]
    fn every_file_of_web_is_embedded_and_nothing_else() {
        let mut on_disk = Vec::new();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
        files_under(&root, "", &mut on_disk);
        on_disk.sort();
        let mut embedded: Vec<String> = ASSETS.iter().map(|a| a.path.to_string()).collect();
        embedded.sort();
        assert_eq!(
            on_disk, embedded,
            "update ASSETS in crates/chessd-server/src/api/routes/webapp.rs"
        );
    }

    #[test]
    fn content_types_follow_the_extension() {
        for a in ASSETS {
            let ext = a.path.rsplit('.').next().unwrap_or_default();
            let expected = match ext {
                "html" => HTML,
                "js" => JS,
                "css" => CSS,
                "svg" => SVG,
                other => panic!("no content type for .{other}"),
            };
            assert_eq!(a.content_type, expected, "{}", a.path);
        }
    }

    #[test]
    fn paths_resolve_and_etags_differ() {
        assert_eq!(find("/").map(|a| a.path), Some("index.html"));
        assert_eq!(find("/js/app.js").map(|a| a.path), Some("js/app.js"));
        assert!(find("/v1/games").is_none());
        assert!(find("/../Cargo.toml").is_none());
        assert_eq!(ASSETS[0].etag.len(), 18);
        let tags: std::collections::HashSet<_> = ASSETS.iter().map(|a| a.etag).collect();
        assert_eq!(tags.len(), ASSETS.len());
    }
}
