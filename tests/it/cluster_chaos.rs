//! A history check of the cluster (in the manner of Jepsen): three nodes on a real PostgreSQL
//! (started by the test), clients playing games through every node while nodes are killed
//! with `kill -9` and started again, or paused with `SIGSTOP` past their lease and resumed.
//! Each client starts a new game when its game ends, so that clients play through all of the
//! chaos (random games end in a few seconds; before, the chaos could find the clients done).
//! Every acknowledged move is recorded with its version; a request whose outcome is unknown
//! (a node died or paused under it, a 503 during a failover) is settled by reading the game.
//! At the end every game is read back from the store itself: versions 1..n with no gap and no
//! duplicate, the acknowledged moves a prefix of the stored ones (0 lost acknowledgements), the
//! stored moves legal when replayed by shakmaty (0 forks), and every node showing the same.

use std::{cell::RefCell, rc::Rc, time::Duration};

use chessd_server::store::{SqliteSync, Store};
use serde_json::{json, Value};
use shakmaty::{fen::Fen, CastlingMode, EnPassantMode, Position};

use crate::common::{
    self,
    cluster::{replay, settled},
    free_port, get_json,
    postgres::PgServer,
    Rng, Server,
};

/// A game as the clients know it.
struct Tracked {
    id: String,
    white: String,
    black: String,
    /// Moves acknowledged (or found stored after an unknown outcome), in order.
    acked: Vec<String>,
    /// Moves answered 200: each must be stored.
    confirmed: usize,
    /// Requests whose outcome was unknown (settled by reading the game).
    unknown: usize,
}

impl Tracked {
    /// A game as its creation answered it.
    fn created(v: &Value) -> Tracked {
        let s = common::GameSecrets::from_answer(v);
        Tracked {
            id: s.id,
            white: s.white,
            black: s.black,
            acked: Vec::new(),
            confirmed: 0,
            unknown: 0,
        }
    }
}

/// The nodes: their addresses (`None` while down or paused) and processes.
struct Nodes {
    bases: Vec<Option<String>>,
}

fn node_env(pg: &PgServer, port: u16) -> Vec<(String, String)> {
    vec![
        ("CHESSD_STORE__URL".into(), pg.url.clone()),
        (
            "CHESSD_CLUSTER__ADVERTISE_URL".into(),
            format!("http://127.0.0.1:{port}"),
        ),
        ("CHESSD_CLUSTER__HEARTBEAT_MS".into(), "200".into()),
        ("CHESSD_CLUSTER__LEASE_MS".into(), "1500".into()),
        ("CHESSD_CLUSTER__PLACEMENT_WAIT_MS".into(), "4000".into()),
        ("CHESSD_QUOTAS__GAMES_PER_MINUTE".into(), "0".into()),
    ]
}

fn start_node(pg: &PgServer, port: u16) -> Server {
    let env = node_env(pg, port);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Server::start_on(&format!("127.0.0.1:{port}"), &env)
}

/// The stored moves of a game, read through any node that answers.
async fn read_moves(c: &awc::Client, nodes: &Rc<RefCell<Nodes>>, id: &str) -> Option<Vec<String>> {
    let bases: Vec<String> = nodes.borrow().bases.iter().flatten().cloned().collect();
    for base in bases {
        let url = format!("{base}/v1/games/{id}");
        let Ok(Ok(mut resp)) =
            tokio::time::timeout(Duration::from_secs(3), c.get(&url).send()).await
        else {
            continue;
        };
        if resp.status() != 200 {
            continue;
        }
        let Ok(v) = resp.json::<Value>().limit(1 << 20).await else {
            continue;
        };
        return Some(
            v["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["uci"].as_str().unwrap().to_string())
                .collect(),
        );
    }
    None
}

/// The games the clients played, for the final check.
type Played = Rc<RefCell<Vec<Rc<RefCell<Tracked>>>>>;

/// Plays games until `stop`, starting with `game`: when a game ends, another is created through
/// a live node, so that the clients play through all the chaos however fast games end.
async fn player(
    c: awc::Client,
    nodes: Rc<RefCell<Nodes>>,
    played: Played,
    game: Rc<RefCell<Tracked>>,
    stop: Rc<RefCell<bool>>,
    seed: u64,
) {
    let mut rng = Rng(seed | 1);
    let mut game = game;
    loop {
        play_game(&c, &nodes, &game, &stop, &mut rng).await;
        let Some(next) = new_game(&c, &nodes, &stop, &mut rng).await else {
            return;
        };
        played.borrow_mut().push(next.clone());
        game = next;
    }
}

/// Creates a game through a random live node (retrying until one answers); `None` at `stop`.
async fn new_game(
    c: &awc::Client,
    nodes: &Rc<RefCell<Nodes>>,
    stop: &Rc<RefCell<bool>>,
    rng: &mut Rng,
) -> Option<Rc<RefCell<Tracked>>> {
    while !*stop.borrow() {
        let live: Vec<String> = nodes.borrow().bases.iter().flatten().cloned().collect();
        if !live.is_empty() {
            let base = &live[rng.below(live.len())];
            let sent = tokio::time::timeout(
                Duration::from_secs(8),
                c.post(format!("{base}/v1/games")).send_json(&json!({})),
            )
            .await;
            if let Ok(Ok(mut resp)) = sent {
                if resp.status() == 201 {
                    let v: Value = resp.json().limit(1 << 20).await.unwrap();
                    return Some(Rc::new(RefCell::new(Tracked::created(&v))));
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    None
}

/// Plays random legal moves of `game` through random live nodes until it ends or `stop`.
async fn play_game(
    c: &awc::Client,
    nodes: &Rc<RefCell<Nodes>>,
    game: &Rc<RefCell<Tracked>>,
    stop: &Rc<RefCell<bool>>,
    rng: &mut Rng,
) {
    while !*stop.borrow() {
        let live: Vec<String> = nodes.borrow().bases.iter().flatten().cloned().collect();
        if live.is_empty() {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
        let base = live[rng.below(live.len())].clone();
        let (url, secret, mv) = {
            let g = game.borrow();
            let pos = replay(&g.acked);
            let moves = pos.legal_moves();
            if moves.is_empty() || g.acked.len() >= 1000 {
                return;
            }
            let mv = moves[rng.below(moves.len())]
                .to_uci(CastlingMode::Standard)
                .to_string();
            let secret = if g.acked.len().is_multiple_of(2) {
                g.white.clone()
            } else {
                g.black.clone()
            };
            (format!("{base}/v1/games/{}/moves", g.id), secret, mv)
        };
        let sent = tokio::time::timeout(
            Duration::from_secs(8),
            c.post(&url)
                .bearer_auth(&secret)
                .send_json(&json!({ "uci": mv })),
        )
        .await;
        let answer = match sent {
            Ok(Ok(mut resp)) => {
                let status = resp.status().as_u16();
                let body: Value = resp.json().limit(1 << 20).await.unwrap_or(Value::Null);
                Some((status, body))
            }
            _ => None,
        };
        match answer {
            Some((200, v)) => {
                let mut g = game.borrow_mut();
                g.acked.push(mv);
                g.confirmed = g.acked.len();
                assert_eq!(
                    v["version"].as_u64(),
                    Some(g.acked.len() as u64),
                    "game {}: {v}",
                    g.id
                );
            }
            // A draw the rules end by themselves (insufficient material, the 75-move rule).
            Some((409, v)) if v["error"]["code"] == "game_over" => return,
            Some((status, v)) if status != 502 && status != 503 => {
                panic!("move {mv} through {base}: {status} {v}")
            }
            // Unknown outcome: the game as stored says whether the move was made. It is
            // settled before the next move (no node may answer for a while during a failover):
            // a move made after all, unknown to the client, would have the next one sent with
            // the wrong seat's secret.
            _ => {
                game.borrow_mut().unknown += 1;
                let id = game.borrow().id.clone();
                let deadline = std::time::Instant::now() + Duration::from_secs(30);
                let stored = loop {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    if let Some(stored) = read_moves(c, nodes, &id).await {
                        break stored;
                    }
                    assert!(
                        std::time::Instant::now() < deadline,
                        "game {id}: no node served it for 30 s"
                    );
                };
                {
                    let mut g = game.borrow_mut();
                    assert!(
                        stored.starts_with(&g.acked),
                        "game {id}: acknowledged {:?}, stored {stored:?}",
                        g.acked
                    );
                    assert!(stored.len() <= g.acked.len() + 1, "game {id}: {stored:?}");
                    g.acked = stored;
                }
            }
        }
    }
}

fn signal(server: &Server, sig: &str) {
    let ok = std::process::Command::new("kill")
        .args([sig, &server.pid().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig}");
}

#[actix_web::test]
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
async fn kills_and_pauses_lose_no_acknowledged_move_and_fork_no_game() {
    let pg = PgServer::start();
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let mut servers: Vec<Server> = ports.iter().map(|&p| start_node(&pg, p)).collect();
    let c = common::client();
    let nodes = Rc::new(RefCell::new(Nodes {
        bases: servers.iter().map(|s| Some(s.base.clone())).collect(),
    }));
    settled(&c, &servers[0].base, 3).await;

    let mut games = Vec::new();
    for i in 0..9 {
        let base = &servers[i % 3].base;
        let (status, v) =
            common::post_json(&c, &format!("{base}/v1/games"), None, &json!({})).await;
        assert_eq!(status, 201, "{v}");
        games.push(Rc::new(RefCell::new(Tracked::created(&v))));
    }
    let played: Played = Rc::new(RefCell::new(games.clone()));
    let stop = Rc::new(RefCell::new(false));
    let players: Vec<_> = games
        .iter()
        .enumerate()
        .map(|(i, g)| {
            actix_web::rt::spawn(player(
                c.clone(),
                nodes.clone(),
                played.clone(),
                g.clone(),
                stop.clone(),
                0x9e37_79b9 + i as u64,
            ))
        })
        .collect();

    // Ten events, each on a node in turn: a kill -9 and a start again, or a pause past the
    // lease and a resume.
    for round in 0..10 {
        tokio::time::sleep(Duration::from_millis(700)).await;
        let victim = round % 3;
        // The clients learn of a dead or paused node only by meeting it: for a moment after
        // the signal they still send to it (refused connections, requests stuck in a paused
        // process), and those outcomes are settled by reading the game.
        if round % 2 == 0 {
            signal(&servers[victim], "-9");
            tokio::time::sleep(Duration::from_millis(300)).await;
            nodes.borrow_mut().bases[victim] = None;
            servers[victim] = start_node(&pg, ports[victim]);
        } else {
            signal(&servers[victim], "-STOP");
            tokio::time::sleep(Duration::from_millis(300)).await;
            nodes.borrow_mut().bases[victim] = None;
            tokio::time::sleep(Duration::from_millis(2200)).await;
            signal(&servers[victim], "-CONT");
        }
        nodes.borrow_mut().bases[victim] = Some(servers[victim].base.clone());
        settled(&c, &servers[(victim + 1) % 3].base, 3).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    *stop.borrow_mut() = true;
    for p in players {
        p.await.unwrap();
    }

    // The history, checked against the store itself and every node.
    let store = Store::open(&pg.url, SqliteSync::Full, 64).await.unwrap();
    let mut moves_total = 0;
    let games = played.borrow().clone();
    let unknown: usize = games.iter().map(|g| g.borrow().unknown).sum();
    assert!(unknown > 0, "no request ever met a dead or paused node");
    for game in &games {
        let g = Tracked {
            id: game.borrow().id.clone(),
            white: String::new(),
            black: String::new(),
            acked: game.borrow().acked.clone(),
            confirmed: game.borrow().confirmed,
            unknown: 0,
        };
        let id = uuid::Uuid::parse_str(&g.id).unwrap();
        let stored = store.load_game(&id).await.unwrap().unwrap();
        // Its packed record (a game that left a node's memory), then its rows.
        let journal = chessd_server::game::journal::read_stored(&stored).unwrap();
        let versions: Vec<u64> = journal.entries.iter().map(|e| e.0).collect();
        let expected: Vec<u64> = (1..=versions.len() as u64).collect();
        assert_eq!(versions, expected, "game {}: gaps or duplicates", g.id);
        let shown = read_moves(&c, &nodes, &g.id).await.unwrap();
        assert_eq!(shown.len(), journal.entries.len(), "game {}", g.id);
        assert!(
            shown.len() >= g.confirmed && shown[..g.confirmed] == g.acked[..g.confirmed],
            "game {}: an acknowledged move is lost: acknowledged {:?}, stored {shown:?}",
            g.id,
            &g.acked[..g.confirmed]
        );
        // Legal from the start: no fork.
        let fen = Fen::from_position(&replay(&shown), EnPassantMode::Legal).to_string();
        let bases: Vec<String> = nodes.borrow().bases.iter().flatten().cloned().collect();
        for base in &bases {
            let (status, v) = get_json(&c, &format!("{base}/v1/games/{}", g.id)).await;
            assert_eq!(status, 200, "{v}");
            assert_eq!(v["fen"], fen, "game {} through {base}", g.id);
        }
        moves_total += g.confirmed;
    }
    assert!(moves_total >= 90, "the clients played {moves_total} moves");
    eprintln!(
        "{moves_total} acknowledged moves, {unknown} unknown outcomes settled, over 10 kills \
         and pauses: 0 lost, 0 forks"
    );
    store.close().await;
}

/// Where a node listens, the proxy in front of it (its advertised address: the other node's
/// forwarded requests and the clients' requests go through it), and its process.
struct ProxiedNode {
    port: u16,
    proxy: common::fault_proxy::FaultProxy,
    server: Option<Server>,
}

fn start_proxied(pg: &PgServer, port: u16, proxy: &str) -> Server {
    let mut env = node_env(pg, port);
    env.retain(|(k, _)| k != "CHESSD_CLUSTER__ADVERTISE_URL");
    env.push(("CHESSD_CLUSTER__ADVERTISE_URL".into(), proxy.into()));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Server::start_on(&format!("127.0.0.1:{port}"), &env)
}

/// One client's game, retried with idempotency keys: every move is sent with a new key and
/// sent again, with the same key, through either node, until it is answered 200.
struct KeyedGame {
    id: String,
    seats: [String; 2],
    acked: Vec<String>,
    /// Requests sent again because their answer was lost or unknown.
    retries: usize,
}

/// Plays `game` with idempotency keys through the proxies until `stop` (then finishes the
/// move it has in flight) or the game ends.
async fn keyed_player(
    c: awc::Client,
    urls: Vec<String>,
    game: Rc<RefCell<KeyedGame>>,
    stop: Rc<RefCell<bool>>,
    seed: u64,
) {
    let mut rng = Rng(seed | 1);
    let mut sent = 0u64;
    while !*stop.borrow() {
        let (id, seat, mv) = {
            let g = game.borrow();
            let pos = replay(&g.acked);
            let moves = pos.legal_moves();
            if moves.is_empty() || g.acked.len() >= 300 {
                return;
            }
            let mv = moves[rng.below(moves.len())]
                .to_uci(CastlingMode::Standard)
                .to_string();
            (g.id.clone(), g.seats[g.acked.len() % 2].clone(), mv)
        };
        sent += 1;
        let key = format!("{id}-{sent}");
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            assert!(
                std::time::Instant::now() < deadline,
                "move {mv} of {id} never answered"
            );
            let url = format!("{}/v1/games/{id}/moves", urls[rng.below(urls.len())]);
            let answer = tokio::time::timeout(
                Duration::from_secs(10),
                c.post(&url)
                    .bearer_auth(&seat)
                    .insert_header(("Idempotency-Key", key.as_str()))
                    .send_json(&json!({ "uci": mv })),
            )
            .await;
            let (status, v) = match answer {
                Ok(Ok(mut resp)) => {
                    let status = resp.status().as_u16();
                    match resp.json::<Value>().limit(1 << 20).await {
                        Ok(v) => (status, v),
                        // The answer's body was lost on the way.
                        Err(_) => (0, Value::Null),
                    }
                }
                _ => (0, Value::Null),
            };
            match status {
                200 => {
                    let mut g = game.borrow_mut();
                    g.acked.push(mv.clone());
                    assert_eq!(
                        v["version"].as_u64(),
                        Some(g.acked.len() as u64),
                        "game {id}: {v}"
                    );
                    break;
                }
                // Lost, unknown or refused while a failover is under way: the same again.
                0 | 502 | 503 => {
                    game.borrow_mut().retries += 1;
                    tokio::time::sleep(Duration::from_millis(20 + rng.below(80) as u64)).await;
                }
                _ => panic!("move {mv} of {id} with key {key}: {status} {v}"),
            }
        }
    }
}

/// Exactly once through lost answers and dead owners: two nodes, each behind a proxy that
/// loses a share of the answers (between the clients and the nodes, and between the nodes:
/// each node's advertised address is its proxy, so forwarded requests lose answers too), while
/// the nodes are killed with `kill -9` and started again. Clients send every move with an
/// idempotency key and send it again, through either node, until it is answered. At the end,
/// every game holds exactly the moves its client was answered for: none lost, none twice.
#[actix_web::test]
#[cfg_attr(
    not(has_postgres),
    ignore = "PostgreSQL is not installed (apt-get install postgresql)"
)]
async fn moves_sent_again_with_their_keys_are_applied_once_through_lost_answers_and_kills() {
    const FAULTS: usize = 200;
    let pg = PgServer::start();
    let mut nodes: Vec<ProxiedNode> = (0..2)
        .map(|_| {
            let port = free_port();
            let backend = format!("127.0.0.1:{port}").parse().unwrap();
            let proxy = common::fault_proxy::FaultProxy::start(backend, 0.0);
            let server = start_proxied(&pg, port, &proxy.url());
            ProxiedNode {
                port,
                proxy,
                server: Some(server),
            }
        })
        .collect();
    let c = awc::Client::builder()
        .timeout(Duration::from_secs(10))
        .finish();
    let direct = nodes[0].server.as_ref().unwrap().base.clone();
    settled(&c, &direct, 2).await;
    let urls: Vec<String> = nodes.iter().map(|n| n.proxy.url()).collect();

    let mut games = Vec::new();
    for i in 0..6 {
        let (status, v) =
            common::post_json(&c, &format!("{}/v1/games", urls[i % 2]), None, &json!({})).await;
        assert_eq!(status, 201, "{v}");
        let s = common::GameSecrets::from_answer(&v);
        games.push(Rc::new(RefCell::new(KeyedGame {
            id: s.id,
            seats: [s.white, s.black],
            acked: Vec::new(),
            retries: 0,
        })));
    }
    for n in &nodes {
        n.proxy.set_drop(0.25);
    }
    let stop = Rc::new(RefCell::new(false));
    let players: Vec<_> = games
        .iter()
        .enumerate()
        .map(|(i, g)| {
            actix_web::rt::spawn(keyed_player(
                c.clone(),
                urls.clone(),
                g.clone(),
                stop.clone(),
                0x51ed_2701 + i as u64,
            ))
        })
        .collect();

    // Kill -9 a node in turn (most likely while it serves a request) and start it again, until
    // enough answers were lost and enough owners killed.
    let started = std::time::Instant::now();
    let mut kills = 0;
    loop {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let dropped: usize = nodes.iter().map(|n| n.proxy.dropped()).sum();
        if dropped + kills >= FAULTS && kills >= 4 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(240),
            "only {dropped} answers lost and {kills} kills in 240 s"
        );
        let victim = &mut nodes[kills % 2];
        let server = victim.server.take().unwrap();
        signal(&server, "-9");
        drop(server);
        kills += 1;
        tokio::time::sleep(Duration::from_millis(300)).await;
        victim.server = Some(start_proxied(&pg, victim.port, &victim.proxy.url()));
    }
    let dropped: usize = nodes.iter().map(|n| n.proxy.dropped()).sum();
    for n in &nodes {
        n.proxy.set_drop(0.0);
    }
    *stop.borrow_mut() = true;
    for p in players {
        p.await.unwrap();
    }

    // Every game holds exactly the moves answered 200, in order, through both nodes.
    let mut moves = 0;
    let mut retries = 0;
    for game in &games {
        let (id, acked, game_retries) = {
            let g = game.borrow();
            (g.id.clone(), g.acked.clone(), g.retries)
        };
        for url in &urls {
            let (status, v) = get_json(&c, &format!("{url}/v1/games/{id}")).await;
            assert_eq!(status, 200, "{v}");
            let shown: Vec<String> = v["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["uci"].as_str().unwrap().to_string())
                .collect();
            assert_eq!(
                shown, acked,
                "game {id}: stored moves are not the answered ones"
            );
        }
        moves += acked.len();
        retries += game_retries;
    }
    assert!(moves >= 100, "the clients played {moves} moves");
    eprintln!(
        "{moves} moves answered over {dropped} lost answers and {kills} kills \
         ({retries} requests sent again): 0 applied twice, 0 lost"
    );
}
