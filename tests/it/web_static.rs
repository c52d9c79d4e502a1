//! The web client's files as the server serves them (in process, no browser): content types,
//! caching headers, conditional requests, and that the pages never shadow the API. Also checks
//! that every module import and every link of index.html names a served file.

use actix_web::http::{header, StatusCode};
use chessd_server::api::routes::webapp::ASSETS;

use crate::common::{
    self,
    app::{request, TestApp},
};

#[actix_web::test]
async fn the_index_is_served_at_the_root_with_its_headers() {
    let app = TestApp::start().await;
    let a = app.send(request("GET", "/", None, None)).await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.header(header::CONTENT_TYPE), "text/html; charset=utf-8");
    assert_eq!(a.header(header::CACHE_CONTROL), "no-cache");
    assert_eq!(a.header(header::X_CONTENT_TYPE_OPTIONS), "nosniff");
    let csp = a.header(header::CONTENT_SECURITY_POLICY);
    assert!(csp.contains("default-src 'self'"), "{csp}");
    let html = String::from_utf8(a.body.clone()).unwrap();
    assert!(html.contains(r#"<script type="module" src="/js/app.js"></script>"#));
    assert_eq!(
        app.send(request("GET", "/index.html", None, None))
            .await
            .body,
        a.body
    );
    // HEAD: the same headers (the HTTP layer drops the body: see the next test).
    let head = app.send(request("HEAD", "/", None, None)).await;
    assert_eq!(head.status, StatusCode::OK);
    assert_eq!(head.header(header::ETAG), a.header(header::ETAG));
}

#[actix_web::test]
async fn the_real_binary_serves_the_pages_from_any_directory() {
    // The files are compiled in: the server runs from a directory without web/.
    let dir = std::env::temp_dir().join(format!("chessd-web-static-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let server = common::Server::start_in(&dir, &[]);
    let base = &server.base;
    let c = awc::Client::default();
    let mut resp = c.get(format!("{base}/")).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let body = resp.body().await.unwrap();
    let index = ASSETS.iter().find(|a| a.path == "index.html").unwrap();
    assert_eq!(&body[..], index.body);
    let mut head = c.head(format!("{base}/")).send().await.unwrap();
    assert_eq!(head.status().as_u16(), 200);
    let length = head
        .headers()
        .get(header::CONTENT_LENGTH)
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(length, index.body.len().to_string());
    assert!(head.body().await.unwrap().is_empty());
    drop(server);
    let _ = std::fs::remove_dir(&dir);
}

#[actix_web::test]
async fn every_file_has_its_type_and_revalidates_with_its_etag() {
    let app = TestApp::start().await;
    for asset in ASSETS {
        let uri = format!("/{}", asset.path);
        let a = app.send(request("GET", &uri, None, None)).await;
        assert_eq!(a.status, StatusCode::OK, "{uri}");
        assert_eq!(a.header(header::CONTENT_TYPE), asset.content_type, "{uri}");
        assert_eq!(a.body, asset.body, "{uri}");
        let tag = a.header(header::ETAG).to_string();
        assert_eq!(tag, asset.etag, "{uri}");
        let again = app
            .send(
                request("GET", &uri, None, None)
                    .insert_header((header::IF_NONE_MATCH, tag.as_str())),
            )
            .await;
        assert_eq!(again.status, StatusCode::NOT_MODIFIED, "{uri}");
        assert!(again.body.is_empty());
        let stale = app
            .send(
                request("GET", &uri, None, None)
                    .insert_header((header::IF_NONE_MATCH, "\"0000000000000000\"")),
            )
            .await;
        assert_eq!(stale.status, StatusCode::OK, "{uri}");
    }
}

#[actix_web::test]
async fn the_pages_never_shadow_the_api() {
    let app = TestApp::start().await;
    for uri in [
        "/v1/nope",
        "/v1/games/x/nope",
        "/nope.js",
        "/js/",
        "/js/../index.html",
        "/css",
    ] {
        let a = app.send(request("GET", uri, None, None)).await;
        assert_eq!(a.status, StatusCode::NOT_FOUND, "{uri}");
        assert_eq!(a.json()["error"]["code"], "not_found", "{uri}");
    }
    let a = app.send(request("POST", "/", None, None)).await;
    assert_eq!(a.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(a.json()["error"]["code"], "method_not_allowed");
    let health = app.send(request("GET", "/health", None, None)).await;
    assert_eq!(health.json()["status"], "ok");
    let doc = app.send(request("GET", "/openapi.json", None, None)).await;
    assert!(doc.json()["paths"].is_object());
    assert!(
        doc.json()["paths"].get("/").is_none(),
        "pages are not API routes"
    );
}

/// The `'./x.js'` module specifiers a script imports.
fn imports(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in source.lines() {
        let line = line.trim();
        if !(line.starts_with("import ") || line.starts_with("} from ")) {
            continue;
        }
        if let Some(at) = line.find("from '") {
            let rest = &line[at + 6..];
            out.push(rest[..rest.find('\'').unwrap()].to_string());
        }
    }
    out
}

#[test]
fn every_import_and_link_names_a_served_file() {
    let served = |path: &str| ASSETS.iter().any(|a| a.path == path);
    let mut checked = 0;
    for asset in ASSETS.iter().filter(|a| a.path.ends_with(".js")) {
        let text = std::str::from_utf8(asset.body).unwrap();
        let dir = asset.path.rsplit_once('/').map_or("", |(d, _)| d);
        for spec in imports(text) {
            let rel = spec.strip_prefix("./").expect("relative imports only");
            let path = if dir.is_empty() {
                rel.to_string()
            } else {
                format!("{dir}/{rel}")
            };
            assert!(served(&path), "{} imports {spec}, not served", asset.path);
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} imports found");
    let index = ASSETS.iter().find(|a| a.path == "index.html").unwrap();
    let html = std::str::from_utf8(index.body).unwrap();
    for attr in ["src=\"/", "href=\"/"] {
        for piece in html.split(attr).skip(1) {
            let path = &piece[..piece.find('"').unwrap()];
            let api = ["openapi.json", "health"].contains(&path);
            assert!(api || served(path), "index.html links /{path}, not served");
        }
    }
    // Nothing is fetched from the internet.
    for asset in ASSETS {
        let text = String::from_utf8_lossy(asset.body);
        for scheme in ["http://", "https://", "//cdn", "@import"] {
            let hits: Vec<&str> = text
                .match_indices(scheme)
                .map(|(i, _)| &text[i..(i + 40).min(text.len())])
                .filter(|s| !s.starts_with("http://www.w3.org/2000/svg"))
                .collect();
            assert!(hits.is_empty(), "{} refers to {hits:?}", asset.path);
        }
    }
}
