//! `GET /v1/games/export` in process, over a real store (a scratch SQLite file, and PostgreSQL
//! when it is installed): both formats, the filters, the PGN tags (the same as the single-game
//! PGN route's), `Accept` negotiation, the limits, and a large export arriving page by page.
//! Every exported game is replayed independently (shakmaty plays its SAN) to the final FEN the
//! server shows.

use std::collections::BTreeMap;

use actix_web::{
    http::{header, StatusCode},
    test::{self, TestRequest},
    web, App,
};
use chessd_core::pgn::{PgnGame, PgnReader};
use chessd_server::{configure_app, Config};
use serde_json::{json, Value};

use crate::common::{
    self,
    app::{request, scratch_state, Chunked, TestApp},
    GameSecrets,
};

const PGN: &str = "application/x-chess-pgn";
const NDJSON: &str = "application/x-ndjson";
const CHESS960: &str = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1";
const FROM_FEN: &str = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";

// ----- Helpers -----

/// `GET /v1/games/export{query}` with an optional `Accept`, read chunk by chunk.
async fn export(app: &TestApp, query: &str, accept: Option<&str>) -> Chunked {
    let mut req = TestRequest::get().uri(&format!("/v1/games/export{query}"));
    if let Some(accept) = accept {
        req = req.insert_header((header::ACCEPT, accept));
    }
    app.send_chunked(req).await
}

/// An export that must answer 200 with `media`: its text.
async fn export_ok(app: &TestApp, query: &str, accept: Option<&str>, media: &str) -> String {
    let answer = export(app, query, accept).await;
    assert_eq!(answer.status, StatusCode::OK, "{query}: {}", answer.text());
    let content_type = answer
        .headers
        .get(header::CONTENT_TYPE)
        .unwrap()
        .to_str()
        .unwrap();
    assert!(content_type.starts_with(media), "{query}: {content_type}");
    assert!(answer.streamed, "{query}: the body is a stream");
    answer.text()
}

/// Every game of a PGN export, each read without error.
fn pgn_games(text: &str) -> Vec<PgnGame> {
    PgnReader::new(text)
        .map(|g| g.unwrap_or_else(|e| panic!("{e}\n{text}")))
        .collect()
}

/// Every line of an NDJSON export, each one JSON object.
fn ndjson_games(text: &str) -> Vec<Value> {
    assert!(text.is_empty() || text.ends_with('\n'), "{text}");
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A PGN game's id, from its `Site` tag (`chessd ID`).
fn pgn_id(game: &PgnGame) -> String {
    game.tag("Site")
        .and_then(|s| s.strip_prefix("chessd "))
        .unwrap_or_else(|| panic!("no chessd Site: {:?}", game.tags))
        .to_string()
}

/// The position after playing `sans` from `fen` with shakmaty (not chessd's rules), as FEN.
fn shakmaty_fen(fen: &str, chess960: bool, sans: &[&str]) -> String {
    use shakmaty::{fen::Fen, san::SanPlus, CastlingMode, Chess, EnPassantMode};
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let mut pos: Chess = Fen::from_ascii(fen.as_bytes())
        .unwrap()
        .into_position(mode)
        .unwrap();
    for san in sans {
        let mv = SanPlus::from_ascii(san.as_bytes())
            .unwrap()
            .san
            .to_move(&pos)
            .unwrap_or_else(|e| panic!("shakmaty refuses {san}: {e}"));
        let written = SanPlus::from_move_and_play_unchecked(&mut pos, mv);
        assert_eq!(written.to_string(), *san, "SAN as shakmaty writes it");
    }
    Fen::from_position(&pos, EnPassantMode::Legal).to_string()
}

/// A PGN game replayed by shakmaty: its final FEN.
fn replay_pgn(game: &PgnGame) -> String {
    let sans: Vec<&str> = game.moves.iter().map(|m| m.san.as_str()).collect();
    shakmaty_fen(&game.start.fen(), game.start.is_chess960(), &sans)
}

/// The tag names of a PGN text's first game, in order.
fn tag_order(pgn: &str) -> Vec<String> {
    pgn.lines()
        .take_while(|l| l.starts_with('['))
        .map(|l| l[1..].split(' ').next().unwrap().to_string())
        .collect()
}

/// The text of one game (`id`) in a PGN export, as the single-game route writes it (ending
/// with one newline; the export adds a blank line after each game).
fn pgn_text_of(export: &str, id: &str) -> String {
    export
        .split("\n\n[Event")
        .enumerate()
        .map(|(i, part)| {
            let part = part.trim_end();
            if i == 0 {
                format!("{part}\n")
            } else {
                format!("[Event{part}\n")
            }
        })
        .find(|g| g.contains(&format!("[Site \"chessd {id}\"]")))
        .unwrap_or_else(|| panic!("no game {id} in\n{export}"))
}

/// Posts to a game route with a secret; asserts 200.
async fn act(app: &TestApp, g: &GameSecrets, tail: &str, secret: &str) {
    let (status, v) = app.post(&g.uri(tail), Some(secret), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{tail}: {v}");
}

/// What a game should look like in the export.
struct Expected {
    fen: String,
    result: &'static str,
    termination: &'static str,
    status: &'static str,
    live: bool,
    uci: Vec<&'static str>,
}

/// Plays a set of games covering the ways a game ends and starts: mate, resignation,
/// agreement, under way, from a FEN, stopped, Chess960. Returns them, oldest first, with what
/// the export must say of each.
async fn play_games(app: &TestApp) -> Vec<(GameSecrets, Expected)> {
    let mut out = Vec::new();
    let mut add = |g: GameSecrets,
                   fen: Value,
                   uci: Vec<&'static str>,
                   e: (&'static str, &'static str, &'static str, bool)| {
        out.push((
            g,
            Expected {
                fen: fen.as_str().unwrap().to_string(),
                result: e.0,
                termination: e.1,
                status: e.2,
                live: e.3,
                uci,
            },
        ));
    };
    // Scholar's mate.
    let mate = vec!["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"];
    let g = app.create_game(json!({})).await;
    app.play(&g, &mate).await;
    let fen = app.view(&g).await["fen"].clone();
    add(g, fen, mate, ("1-0", "normal", "white_wins", true));
    // Black resigns.
    let g = app.create_game(json!({})).await;
    app.play(&g, &["e2e4"]).await;
    act(app, &g, "/resign", &g.black.clone()).await;
    let fen = app.view(&g).await["fen"].clone();
    add(g, fen, vec!["e2e4"], ("1-0", "normal", "white_wins", true));
    // A draw by agreement.
    let g = app.create_game(json!({})).await;
    app.play(&g, &["d2d4", "d7d5"]).await;
    act(app, &g, "/draw-offer", &g.white.clone()).await;
    act(app, &g, "/draw-offer/accept", &g.black.clone()).await;
    let fen = app.view(&g).await["fen"].clone();
    add(
        g,
        fen,
        vec!["d2d4", "d7d5"],
        ("1/2-1/2", "normal", "draw", true),
    );
    // Under way.
    let g = app.create_game(json!({})).await;
    app.play(&g, &["c2c4", "e7e5", "b1c3"]).await;
    let fen = app.view(&g).await["fen"].clone();
    add(
        g,
        fen,
        vec!["c2c4", "e7e5", "b1c3"],
        ("*", "unterminated", "ongoing", true),
    );
    // From a FEN, under way.
    let g = app.create_game(json!({ "fen": FROM_FEN })).await;
    app.play(&g, &["e2e4", "e8d7"]).await;
    let fen = app.view(&g).await["fen"].clone();
    add(
        g,
        fen,
        vec!["e2e4", "e8d7"],
        ("*", "unterminated", "ongoing", true),
    );
    // Stopped before it ended: no longer served, still exported.
    let g = app.create_game(json!({})).await;
    app.play(&g, &["g1f3"]).await;
    let fen = app.view(&g).await["fen"].clone();
    let (status, v) = app.delete(&g.uri(""), Some(&g.admin)).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{v}");
    add(g, fen, vec!["g1f3"], ("*", "abandoned", "ongoing", false));
    // Chess960.
    let g = app.create_game(json!({ "fen": CHESS960 })).await;
    app.play(&g, &["g2g3", "g7g6", "c1d3"]).await;
    let fen = app.view(&g).await["fen"].clone();
    add(
        g,
        fen,
        vec!["g2g3", "g7g6", "c1d3"],
        ("*", "unterminated", "ongoing", true),
    );
    out
}

/// The ids `GET /v1/games?status=` lists, newest first.
async fn listed(app: &TestApp, status: &str) -> Vec<String> {
    let v = app
        .get_ok(&format!("/v1/games?status={status}&limit=100"))
        .await;
    v["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap().to_string())
        .collect()
}

/// Both formats against the games `play_games` made, with every filter.
async fn exports_agree_with_the_games(app: &TestApp) {
    let games = play_games(app).await;
    let expected: BTreeMap<String, &Expected> =
        games.iter().map(|(g, e)| (g.id.clone(), e)).collect();
    let newest_first: Vec<String> = games.iter().rev().map(|(g, _)| g.id.clone()).collect();
    assert_eq!(listed(app, "all").await, newest_first);

    // PGN, the default.
    let text = export_ok(app, "", None, PGN).await;
    let pgn = pgn_games(&text);
    assert_eq!(
        pgn.iter().map(pgn_id).collect::<Vec<_>>(),
        newest_first,
        "newest first, every game once"
    );
    for game in &pgn {
        let id = pgn_id(game);
        let e = expected[&id];
        // Compared as shakmaty writes both (it writes X-FEN castling for Chess960).
        assert_eq!(
            replay_pgn(game),
            shakmaty_fen(&e.fen, game.start.is_chess960(), &[]),
            "{id}: the moves lead to the server's FEN"
        );
        assert_eq!(game.position().fen(), e.fen, "{id}");
        assert_eq!(game.tag("Result"), Some(e.result), "{id}");
        assert_eq!(game.tag("Termination"), Some(e.termination), "{id}");
        assert_eq!(game.tag("TimeControl"), Some("-"), "{id}");
        assert_eq!(
            (game.tag("White"), game.tag("Black")),
            (Some("?"), Some("?"))
        );
        let uci: Vec<String> = game.game.uci_history();
        assert_eq!(uci, e.uci, "{id}");
        let one = pgn_text_of(&text, &id);
        assert_eq!(
            tag_order(&one)[..7],
            ["Event", "Site", "Date", "Round", "White", "Black", "Result"],
            "the Seven Tag Roster first:\n{one}"
        );
    }
    // The set-up tags: a FEN start, and Chess960.
    let from_fen = pgn.iter().find(|g| g.tag("FEN") == Some(FROM_FEN)).unwrap();
    assert_eq!(from_fen.tag("SetUp"), Some("1"));
    assert_eq!(from_fen.tag("Variant"), None);
    let c960 = pgn.iter().find(|g| g.tag("FEN") == Some(CHESS960)).unwrap();
    assert_eq!(
        (c960.tag("Variant"), c960.tag("SetUp")),
        (Some("Chess960"), Some("1"))
    );
    assert!(c960.start.is_chess960());

    // NDJSON.
    let text = export_ok(app, "", Some(NDJSON), NDJSON).await;
    let lines = ndjson_games(&text);
    assert_eq!(
        lines
            .iter()
            .map(|l| l["id"].as_str().unwrap())
            .collect::<Vec<_>>(),
        newest_first
    );
    for line in &lines {
        let id = line["id"].as_str().unwrap();
        let e = expected[id];
        let sans: Vec<&str> = line["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["san"].as_str().unwrap())
            .collect();
        let uci: Vec<&str> = line["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["uci"].as_str().unwrap())
            .collect();
        let initial = line["initial_fen"].as_str().unwrap();
        let chess960 = line["variant"] == "chess960";
        assert_eq!(chess960, initial == CHESS960, "{line}");
        assert_eq!(
            shakmaty_fen(initial, chess960, &sans),
            shakmaty_fen(&e.fen, chess960, &[]),
            "{line}"
        );
        assert_eq!(line["fen"], e.fen.as_str(), "{line}");
        assert_eq!(uci, e.uci, "{line}");
        assert_eq!(line["result"], e.result, "{line}");
        assert_eq!(line["termination"], e.termination, "{line}");
        assert_eq!(line["status"]["result"], e.status, "{line}");
        assert_eq!(line["live"], e.live, "{line}");
        assert_eq!(line["time_control"], Value::Null, "{line}");
        assert_eq!(
            line["players"],
            json!({"white": {"name": "?", "engine": null}, "black": {"name": "?", "engine": null}})
        );
        assert!(
            line["created_ms"].as_i64().unwrap() > 1_600_000_000_000,
            "{line}"
        );
    }

    // Filters and `max`, in both formats, against the list.
    for status in [
        "all",
        "ongoing",
        "finished",
        "white_wins",
        "black_wins",
        "draw",
    ] {
        let ids = listed(app, status).await;
        let text = export_ok(app, &format!("?status={status}"), Some(NDJSON), NDJSON).await;
        let got: Vec<String> = ndjson_games(&text)
            .iter()
            .map(|l| l["id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(got, ids, "status={status}");
        let text = export_ok(app, &format!("?status={status}"), Some(PGN), PGN).await;
        let got: Vec<String> = pgn_games(&text).iter().map(pgn_id).collect();
        assert_eq!(got, ids, "status={status}");
    }
    assert_eq!(listed(app, "finished").await.len(), 3);
    assert_eq!(listed(app, "draw").await.len(), 1);
    let text = export_ok(app, "?max=2", Some(NDJSON), NDJSON).await;
    let got: Vec<String> = ndjson_games(&text)
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(got, newest_first[..2]);
    let text = export_ok(app, "?status=ongoing&max=3", None, PGN).await;
    assert_eq!(
        pgn_games(&text).iter().map(pgn_id).collect::<Vec<_>>(),
        listed(app, "ongoing").await[..3]
    );
}

// ----- Tests -----

#[actix_web::test]
async fn both_formats_carry_every_game_to_the_servers_fen_with_filters() {
    let app = TestApp::start().await;
    exports_agree_with_the_games(&app).await;
}

#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
#[actix_web::test]
async fn the_export_reads_postgresql_the_same_way() {
    let pg = common::postgres::PgServer::start();
    let url = pg.url.clone();
    let app = TestApp::tweaked(move |c| c.store.url = url).await;
    exports_agree_with_the_games(&app).await;
}

/// Waits until a game is over (a clock's flag falls on the server's timer).
async fn until_over(app: &TestApp, g: &GameSecrets) -> Value {
    for _ in 0..100 {
        let v = app.get_ok(&g.uri("/status")).await;
        if v["status"]["result"] != "ongoing" {
            return v;
        }
        actix_web::rt::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the game never ended");
}

/// `YYYY.MM.DD` and `HH:MM:SS` of a Unix time in milliseconds, in UTC.
fn utc(ms: i64) -> (String, String) {
    let t = time::OffsetDateTime::from_unix_timestamp(ms / 1000).unwrap();
    (
        format!("{:04}.{:02}.{:02}", t.year(), u8::from(t.month()), t.day()),
        format!("{:02}:{:02}:{:02}", t.hour(), t.minute(), t.second()),
    )
}

#[actix_web::test]
async fn tags_of_a_timed_engine_game_and_a_timed_out_game_match_the_single_game_route() {
    common::builtin_runs_the_real_binary();
    let app = TestApp::start().await;
    let engine = app
        .create_game(json!({
            "time_control": {"initial_ms": 300000, "increment_ms": 2000},
            "opponent": {"engine": "builtin", "plays": "black", "go": {"depth": 1}}
        }))
        .await;
    act(&app, &engine, "/resign", &engine.white.clone()).await;
    let flagged = app
        .create_game(json!({"time_control": {"initial_ms": 1500, "increment_ms": 0}}))
        .await;
    // White's first move starts Black's clock; Black's reply starts White's, which runs out.
    app.play(&flagged, &["e2e4", "e7e5"]).await;
    let over = until_over(&app, &flagged).await;
    assert_eq!(
        (&over["status"]["result"], &over["status"]["reason"]),
        (&json!("black_wins"), &json!("timeout")),
        "{over}"
    );

    let text = export_ok(&app, "", None, PGN).await;
    let lines = ndjson_games(&export_ok(&app, "", Some(NDJSON), NDJSON).await);
    let created: BTreeMap<String, i64> = app.get_ok("/v1/games").await["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["id"].as_str().unwrap().to_string(),
                g["created_ms"].as_i64().unwrap(),
            )
        })
        .collect();
    for (g, tags, players) in [
        (
            &engine,
            [
                ("White", "?"),
                ("Black", "builtin"),
                ("Result", "0-1"),
                ("TimeControl", "300+2"),
                ("Termination", "normal"),
            ],
            json!({"white": {"name": "?", "engine": null}, "black": {"name": "builtin", "engine": "builtin"}}),
        ),
        (
            &flagged,
            [
                ("White", "?"),
                ("Black", "?"),
                ("Result", "0-1"),
                ("TimeControl", "1.5+0"),
                ("Termination", "time forfeit"),
            ],
            json!({"white": {"name": "?", "engine": null}, "black": {"name": "?", "engine": null}}),
        ),
    ] {
        let one = pgn_text_of(&text, &g.id);
        let game = pgn_games(&one).pop().unwrap();
        for (name, value) in tags {
            assert_eq!(game.tag(name), Some(value), "{name} in\n{one}");
        }
        let (date, clock) = utc(created[&g.id]);
        assert_eq!(game.tag("Date"), Some(date.as_str()), "{one}");
        assert_eq!(game.tag("UTCTime"), Some(clock.as_str()), "{one}");
        assert_eq!(game.tag("Round"), Some("-"));
        assert_eq!(game.tag("Event"), Some("chessd game"));
        // The single-game route writes the very same game, tags and all.
        let (status, content_type, single) =
            app.raw(request("GET", &g.uri("/pgn"), None, None)).await;
        assert_eq!(status, StatusCode::OK);
        assert!(content_type.starts_with(PGN), "{content_type}");
        assert_eq!(single, one);
        let line = lines.iter().find(|l| l["id"] == g.id.as_str()).unwrap();
        assert_eq!(line["players"], players, "{line}");
        assert_eq!(line["termination"], game.tag("Termination").unwrap());
        assert_eq!(line["created_ms"], created[&g.id]);
    }
    let line = lines
        .iter()
        .find(|l| l["id"] == flagged.id.as_str())
        .unwrap();
    assert_eq!(
        line["time_control"],
        json!({"initial_ms": 1500, "increment_ms": 0})
    );
    assert_eq!(line["status"]["reason"], "timeout");
}

#[actix_web::test]
async fn accept_chooses_the_format_and_anything_else_is_406() {
    let app = TestApp::start().await;
    let g = app.create_game(json!({})).await;
    app.play(&g, &["e2e4"]).await;
    for (accept, media) in [
        (None, PGN),
        (Some("*/*"), PGN),
        (Some("application/*"), PGN),
        (Some("application/x-chess-pgn"), PGN),
        (Some("application/x-ndjson"), NDJSON),
        (Some("text/html, application/x-ndjson;q=0.5"), NDJSON),
        (
            Some("application/x-chess-pgn;q=0.4, application/x-ndjson;q=0.9"),
            NDJSON,
        ),
        (Some("application/x-ndjson;q=0, */*;q=0.1"), PGN),
    ] {
        let text = export_ok(&app, "", accept, media).await;
        let answer = export(&app, "", accept).await;
        assert_eq!(answer.headers.get(header::VARY).unwrap(), "Accept");
        if media == PGN {
            assert_eq!(pgn_games(&text).len(), 1, "{accept:?}");
        } else {
            assert_eq!(ndjson_games(&text).len(), 1, "{accept:?}");
        }
    }
    for accept in [
        "application/json",
        "text/html",
        "application/x-ndjson;q=0",
        "nonsense",
    ] {
        let answer = export(&app, "", Some(accept)).await;
        let v: Value = serde_json::from_str(&answer.text()).unwrap();
        assert_eq!(
            (answer.status, v["error"]["code"].as_str()),
            (StatusCode::NOT_ACCEPTABLE, Some("not_acceptable")),
            "{accept}: {v}"
        );
        assert!(v["error"]["message"].as_str().unwrap().contains(NDJSON));
    }
}

#[actix_web::test]
async fn bad_parameters_and_limits_are_refused_with_json_errors() {
    let app = TestApp::tweaked(|c| c.limits.max_export_games = 5).await;
    for (query, status, code) in [
        ("?max=6", StatusCode::UNPROCESSABLE_ENTITY, "limit_exceeded"),
        ("?max=0", StatusCode::BAD_REQUEST, "invalid_request"),
        ("?max=-1", StatusCode::BAD_REQUEST, "invalid_request"),
        ("?status=won", StatusCode::BAD_REQUEST, "invalid_request"),
        ("?limit=3", StatusCode::BAD_REQUEST, "invalid_request"),
    ] {
        let (got, v) = app.get(&format!("/v1/games/export{query}")).await;
        assert_eq!(
            (got, v["error"]["code"].as_str()),
            (status, Some(code)),
            "{query}: {v}"
        );
        assert!(v["error"]["message"].is_string(), "{v}");
    }
    // At the limit, and with no `max`, at most the limit is sent.
    for _ in 0..7 {
        app.create_game(json!({})).await;
    }
    for query in ["?max=5", ""] {
        let text = export_ok(&app, query, Some(NDJSON), NDJSON).await;
        assert_eq!(ndjson_games(&text).len(), 5, "{query}");
    }
}

/// The app as a bare service, so that a test can hold an export's answer unread (its stream
/// holds the export's place until it is dropped).
async fn concurrent_exports_are_limited(tweak: impl FnOnce(&mut Config), keys: [&str; 3]) {
    let mut config = Config::defaults();
    config.auth.api_keys = vec!["k1".into(), "k2".into(), "k3".into()];
    tweak(&mut config);
    let (state, scratch) = scratch_state(config, None).await;
    let app = test::init_service(App::new().configure(configure_app(web::Data::new(state)))).await;
    let get = |key: &str| {
        TestRequest::get()
            .uri("/v1/games/export")
            .insert_header(("X-API-Key", key.to_string()))
            .to_request()
    };
    let first = test::call_service(&app, get(keys[0])).await;
    assert_eq!(first.status(), StatusCode::OK);
    let refused = test::call_service(&app, get(keys[1])).await;
    let status = refused.status();
    let v: Value = test::read_body_json(refused).await;
    let expected = if keys[0] == keys[1] {
        (StatusCode::TOO_MANY_REQUESTS, "quota_exceeded")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "too_many_exports")
    };
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (expected.0, Some(expected.1)),
        "{v}"
    );
    // Another client, or the same once its first export is read to the end, gets its turn.
    let body = test::read_body(first).await;
    assert!(body.is_empty(), "no games yet");
    let again = test::call_service(&app, get(keys[2])).await;
    assert_eq!(again.status(), StatusCode::OK);
    // An export dropped unread gives its place back too.
    drop(again);
    let last = test::call_service(&app, get(keys[1])).await;
    assert_eq!(last.status(), StatusCode::OK);
    drop(last);
    drop(app);
    if let Some(path) = scratch {
        common::remove_sqlite(&path);
    }
}

#[actix_web::test]
async fn concurrent_exports_are_limited_per_client() {
    concurrent_exports_are_limited(|c| c.quotas.max_exports = 1, ["k1", "k1", "k1"]).await;
}

#[actix_web::test]
async fn concurrent_exports_are_limited_in_total() {
    concurrent_exports_are_limited(
        |c| {
            c.limits.max_exports = 1;
            c.quotas.max_exports = 5;
        },
        ["k1", "k2", "k3"],
    )
    .await;
}

#[actix_web::test]
async fn a_large_export_arrives_page_by_page() {
    const GAMES: usize = 300;
    let app = TestApp::tweaked(|c| {
        c.quotas.games_per_minute = 0;
        c.quotas.max_ongoing_games = 1000;
        c.store.sqlite_sync = chessd_server::store::SqliteSync::Normal;
    })
    .await;
    let mut ids = Vec::new();
    for i in 0..GAMES {
        let g = app.create_game(json!({})).await;
        if i % 3 == 0 {
            app.play(&g, &["e2e4", "e7e5"]).await;
        }
        ids.push(g.id);
    }
    ids.reverse();
    let answer = export(&app, "", Some(NDJSON)).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.streamed, "a stream of unknown length, sent chunked");
    // A chunk a page (256 games), each sent as it is ready: never the export as one piece,
    // and never a game split between chunks.
    assert!(
        answer.chunks.len() >= GAMES.div_ceil(256),
        "{} chunks",
        answer.chunks.len()
    );
    let mut lines = Vec::new();
    for chunk in &answer.chunks {
        assert_eq!(chunk.last(), Some(&b'\n'));
        for line in chunk.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let line: Value = serde_json::from_slice(line).unwrap();
            lines.push(line["id"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(lines, ids);
    let answer = export(&app, "?max=280", None).await;
    assert!(
        answer.chunks.len() >= 280_usize.div_ceil(256),
        "{} chunks",
        answer.chunks.len()
    );
    let games = pgn_games(&answer.text());
    assert_eq!(games.len(), 280);
    assert_eq!(
        games.iter().map(pgn_id).collect::<Vec<_>>(),
        ids[..280].to_vec()
    );
}

#[actix_web::test]
async fn without_a_store_the_export_is_empty() {
    let app = TestApp::tweaked(|c| c.store.url = "memory".into()).await;
    app.create_game(json!({})).await;
    for accept in [PGN, NDJSON] {
        let text = export_ok(&app, "", Some(accept), accept).await;
        assert_eq!(text, "", "{accept}");
    }
}

// ----- The real server: exports whose clients stop reading -----

/// Fills the SQLite store at `url` with `games` copies of `template` (new ids), each with the
/// same `plies` random moves.
async fn fill_store(url: &str, template: &str, games: usize, plies: usize) {
    use chessd_server::{
        game::journal::Entry,
        store::{NewGameRow, SqliteSync, Store, WriteOp},
    };
    let store = Store::open(url, SqliteSync::Normal, 4096).await.unwrap();
    let template = store
        .load_game(&uuid::Uuid::parse_str(template).unwrap())
        .await
        .unwrap()
        .unwrap();
    let mut game = chessd_core::game::Game::new(chessd_core::Position::startpos());
    let mut rng = common::Rng(0x5eed);
    let mut moves = Vec::new();
    while moves.len() < plies {
        let legal = game.position().legal_moves();
        if legal.is_empty() || game.is_over() {
            break;
        }
        let mv = legal[rng.below(legal.len())];
        let uci = game.position().uci(mv);
        game.play(mv).unwrap();
        moves.push(Entry::played(uci, None).encode());
    }
    let status = game.status().result.name().to_string();
    let inserts = (0..games).map(|_| {
        let (store, moves, status) = (&store, &moves, status.clone());
        let row = NewGameRow {
            id: uuid::Uuid::new_v4(),
            created_ms: chessd_server::store::now_ms(),
            secrets: template.secrets.clone(),
            setup: template.setup.clone(),
            options: template.options.clone(),
            status,
        };
        async move {
            let seq = store.write(WriteOp::Create(row)).await.unwrap();
            let appends = moves.iter().enumerate().map(|(i, body)| {
                store.write(WriteOp::Append {
                    game: seq,
                    version: i as i64 + 1,
                    body: body.clone(),
                    status: None,
                    now_ms: 0,
                })
            });
            for written in futures_util::future::join_all(appends).await {
                written.unwrap();
            }
        }
    });
    futures_util::future::join_all(inserts).await;
    store.close().await;
}

/// Starts an NDJSON export from a client with a tiny receive window that reads its answer's
/// first bytes, then nothing more; gives the connection (kept open).
async fn stalled_export(server: std::net::SocketAddr) -> tokio::net::TcpStream {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(server).await.unwrap();
    let request =
        "GET /v1/games/export HTTP/1.1\r\nHost: chessd\r\nAccept: application/x-ndjson\r\n\r\n";
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut first = [0u8; 64];
    let n = stream.read(&mut first).await.unwrap();
    assert!(String::from_utf8_lossy(&first[..n]).starts_with("HTTP/1.1 200"));
    stream
}

/// Exports whose clients stop reading hold their places for `limits.export_stall_secs` at most:
/// then the places go to other clients.
#[actix_web::test]
async fn exports_that_nobody_reads_give_their_places_back() {
    let path = common::scratch_store();
    let url = format!("sqlite://{}", path.display());
    let env = [
        ("CHESSD_STORE__URL", url.as_str()),
        ("CHESSD_LIMITS__MAX_EXPORTS", "2"),
        ("CHESSD_QUOTAS__MAX_EXPORTS", "4"),
        ("CHESSD_LIMITS__EXPORT_STALL_SECS", "2"),
    ];
    let mut server = common::Server::start(&env);
    let c = common::client();
    let template = common::create_game(&c, &server.base, &json!({})).await;
    assert!(server.terminate(std::time::Duration::from_secs(10)));
    // Some 4 MB of NDJSON: more than the sockets' buffers hold.
    fill_store(&url, &template.id, 1500, 80).await;
    let server = common::Server::start(&env);
    let stalled = [
        stalled_export(server.addr()).await,
        stalled_export(server.addr()).await,
    ];
    let exports = format!("{}/v1/games/export?max=1", server.base);
    let (status, v) = common::get_json(&c, &exports).await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (503, Some("too_many_exports")),
        "{v}"
    );
    let started = std::time::Instant::now();
    let status = loop {
        let resp = c.get(&exports).send().await.unwrap();
        if resp.status() == 200 || started.elapsed() > std::time::Duration::from_secs(10) {
            break resp.status().as_u16();
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };
    assert_eq!(status, 200, "the stalled exports kept their places");
    let waited = started.elapsed();
    assert!(waited < std::time::Duration::from_secs(5), "{waited:?}");
    drop(stalled);
    common::remove_sqlite(&path);
}
