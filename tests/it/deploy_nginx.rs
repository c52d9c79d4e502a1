//! The deploy/ example, for real, on loopback: a PostgreSQL (started by the test), three chessd
//! nodes started as deploy/README.md says (`--config deploy/node.toml`, the node's address and
//! the database from the environment), and nginx running the template deploy/nginx/chessd.conf
//! filled in a scratch directory. Everything then goes through nginx's address only: games are
//! created and played with their seat secrets, a WebSocket spectator sees a move arrive, and
//! after `kill -9` of the node that owns the watched game every game goes on being played. A
//! 502 or 503 during the failover leaves it unknown whether a move was made: the game is read,
//! and the move sent again only when it is not there (nginx never sends a POST twice). At the
//! end every acknowledged move is in `GET /v1/games/{id}` (`fen`, `version`).

use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::{json, Value};
use shakmaty::{fen::Fen, CastlingMode, EnPassantMode, Position};

use crate::common::{
    self, client,
    cluster::{replay, settled},
    free_port, get_json, post_json,
    postgres::PgServer,
};

/// Where Debian's nginx (nginx-light) installs it.
const NGINX: &str = "/usr/sbin/nginx";

/// The standard start position.
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A file of the repository.
fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// A chessd node as deploy/README.md starts one: `serve --bind ADDR --config deploy/node.toml`
/// with its advertised address and the database in the environment. Killed on drop.
struct Node {
    child: Child,
    /// `http://127.0.0.1:PORT`, also its `cluster.advertise_url`.
    base: String,
}

impl Node {
    fn start(pg: &PgServer) -> Node {
        let port = free_port();
        let addr = format!("127.0.0.1:{port}");
        let base = format!("http://{addr}");
        let mut child = Command::new(env!("CARGO_BIN_EXE_chessd"))
            .args(["serve", "--bind", &addr, "--config"])
            .arg(repo("deploy/node.toml"))
            .env("RUST_LOG", "warn")
            .env("CHESSD_STORE__URL", &pg.url)
            .env("CHESSD_CLUSTER__ADVERTISE_URL", &base)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start chessd");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let line = lines.next().expect("chessd printed its address").unwrap();
        assert_eq!(line, format!("chessd listening on {base}"));
        // Keep draining stdout so the node never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Node { child, base }
    }

    /// `127.0.0.1:PORT`, as the nginx template wants it.
    fn addr(&self) -> &str {
        self.base.strip_prefix("http://").unwrap()
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// nginx running deploy/nginx/chessd.conf, filled in a scratch directory (its prefix: the
/// configuration, pid file, logs and temporary files). Stopped on drop, and the directory
/// deleted.
struct Nginx {
    child: Child,
    dir: PathBuf,
    /// `http://127.0.0.1:PORT`
    base: String,
}

impl Nginx {
    fn start(nodes: [&str; 3]) -> Nginx {
        let dir =
            std::env::temp_dir().join(format!("chessd-nginx-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(dir.join("logs")).unwrap();
        std::fs::create_dir_all(dir.join("tmp")).unwrap();
        // As root, nginx's workers run as `nobody`: they must reach the temporary files.
        {
            use std::os::unix::fs::PermissionsExt;
            let open = std::fs::Permissions::from_mode(0o755);
            for d in [dir.clone(), dir.join("logs"), dir.join("tmp")] {
                std::fs::set_permissions(&d, open.clone()).unwrap();
            }
        }
        let listen = format!("127.0.0.1:{}", free_port());
        let template = std::fs::read_to_string(repo("deploy/nginx/chessd.conf")).unwrap();
        let conf = template
            .replace("@LISTEN@", &listen)
            .replace("@NODE1@", nodes[0])
            .replace("@NODE2@", nodes[1])
            .replace("@NODE3@", nodes[2])
            .replace("@PREFIX@", dir.to_str().unwrap());
        assert!(
            !conf.contains('@'),
            "a placeholder of deploy/nginx/chessd.conf is left unfilled"
        );
        let conf_path = dir.join("nginx.conf");
        std::fs::write(&conf_path, conf).unwrap();
        let args = |test: bool| {
            let mut a: Vec<String> = Vec::new();
            if test {
                a.push("-t".into());
            }
            for s in [
                "-p",
                dir.to_str().unwrap(),
                "-c",
                conf_path.to_str().unwrap(),
                "-g",
                "daemon off;",
            ] {
                a.push(s.into());
            }
            a
        };
        // `nginx -t` first: a template nginx refuses fails here, with nginx's reason.
        let checked = Command::new(NGINX).args(args(true)).output().unwrap();
        assert!(
            checked.status.success(),
            "nginx -t: {}",
            String::from_utf8_lossy(&checked.stderr)
        );
        let child = Command::new(NGINX)
            .args(args(false))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start nginx");
        Nginx {
            child,
            dir,
            base: format!("http://{listen}"),
        }
    }

    /// Waits until nginx answers `GET /health` from a node.
    async fn ready(&mut self, c: &awc::Client) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("nginx exited: {status}");
            }
            let answer = c.get(format!("{}/health", self.base)).send().await;
            if answer.is_ok_and(|a| a.status() == 200) {
                return;
            }
            assert!(Instant::now() < deadline, "nginx never answered /health");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The access log: which node answered each request (and every node tried).
    fn access_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("logs/access.log")).unwrap_or_default()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGTERM: the master stops its workers and exits (SIGKILL would leave them running,
        // holding the port).
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A game and the moves the servers acknowledged.
struct Played {
    id: String,
    white: String,
    black: String,
    acked: Vec<String>,
}

fn fen_after(moves: &[String]) -> String {
    Fen::from_position(&replay(moves), EnPassantMode::Legal).to_string()
}

/// The next move of a game: a legal move after `acked`, chosen by `salt`.
fn next_move(acked: &[String], salt: usize) -> Option<String> {
    let moves = replay(acked).legal_moves();
    (!moves.is_empty()).then(|| {
        moves[salt % moves.len()]
            .to_uci(CastlingMode::Standard)
            .to_string()
    })
}

/// Whether an answer says "no node could serve it right now": nginx's 502 (every node tried
/// failed) or chessd's 503 (a failover under way).
fn unavailable(status: u16) -> bool {
    status == 502 || status == 503
}

/// `GET /v1/games/{id}`, asked again while it is unavailable, up to `deadline`.
async fn read_game(c: &awc::Client, base: &str, id: &str, deadline: Instant) -> Value {
    loop {
        let (status, v) = get_json(c, &format!("{base}/v1/games/{id}")).await;
        if status == 200 {
            return v;
        }
        assert!(
            unavailable(status) && Instant::now() < deadline,
            "GET game {id}: {status} {v}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Plays the next move of `game` through `base` with the seat secret of the side to move, and
/// records it once acknowledged. An unavailable answer (502, 503) leaves the outcome unknown:
/// the game is read, and the move counts as made when it is there, else it is sent again, for
/// up to `limit`. Returns the unavailable answers it met (their statuses).
async fn play(
    c: &awc::Client,
    base: &str,
    game: &mut Played,
    salt: usize,
    limit: Duration,
) -> Vec<u16> {
    let mv = next_move(&game.acked, salt).expect("the game goes on");
    let secret = if game.acked.len().is_multiple_of(2) {
        game.white.clone()
    } else {
        game.black.clone()
    };
    let url = format!("{base}/v1/games/{}/moves", game.id);
    let before = game.acked.len() as u64;
    let deadline = Instant::now() + limit;
    let mut unavailable_answers = Vec::new();
    loop {
        let (status, v) = post_json(c, &url, Some(&secret), &json!({ "uci": mv })).await;
        if status == 200 {
            assert_eq!(v["version"].as_u64(), Some(before + 1), "{v}");
            game.acked.push(mv);
            return unavailable_answers;
        }
        assert!(
            unavailable(status) && Instant::now() < deadline,
            "move {mv} of {} through {base}: {status} {v}",
            game.id
        );
        unavailable_answers.push(status);
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = read_game(c, base, &game.id, deadline).await;
        match now["version"].as_u64() {
            // Not made: send it again.
            Some(v) if v == before => {}
            // Made before the answer was lost.
            Some(v) if v == before + 1 => {
                game.acked.push(mv);
                assert_eq!(now["fen"], fen_after(&game.acked), "{now}");
                return unavailable_answers;
            }
            _ => panic!("game {} moved on without us: {now}", game.id),
        }
    }
}

/// Every game, read through `base`, holds exactly its acknowledged moves.
async fn check_games(c: &awc::Client, base: &str, games: &[Played]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    for g in games {
        let v = read_game(c, base, &g.id, deadline).await;
        assert_eq!(v["fen"], fen_after(&g.acked), "game {}: {v}", g.id);
        assert_eq!(v["version"].as_u64(), Some(g.acked.len() as u64), "{v}");
    }
}

/// Waits for the `move` event of version `version` on a spectator's socket.
async fn see_move(spectator: &mut common::WsConn, version: usize, uci: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let event = common::ws_json(spectator).await;
        if event["type"] == "move" && event["version"].as_u64() == Some(version as u64) {
            assert_eq!(event["uci"], uci, "{event}");
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the spectator never saw move {version}: last {event}"
        );
    }
}

#[actix_web::test]
#[cfg_attr(
    not(all(has_postgres, has_nginx)),
    ignore = "PostgreSQL or nginx is not installed (apt-get install postgresql nginx-light)"
)]
async fn three_nodes_behind_nginx_play_on_when_one_dies() {
    let pg = PgServer::start();
    let mut nodes: Vec<Node> = (0..3).map(|_| Node::start(&pg)).collect();
    let c = client();
    settled(&c, &nodes[0].base, 3).await;
    let mut nginx = Nginx::start([nodes[0].addr(), nodes[1].addr(), nodes[2].addr()]);
    nginx.ready(&c).await;
    // From here on, only nginx's address.
    let base = nginx.base.clone();
    settled(&c, &base, 3).await;

    // Games created and played through nginx.
    let mut games = Vec::new();
    for _ in 0..6 {
        let (status, v) = post_json(&c, &format!("{base}/v1/games"), None, &json!({})).await;
        assert_eq!(status, 201, "{v}");
        let secrets = common::GameSecrets::from_answer(&v);
        games.push(Played {
            id: secrets.id,
            white: secrets.white,
            black: secrets.black,
            acked: Vec::new(),
        });
    }
    for round in 0..4 {
        for (i, g) in games.iter_mut().enumerate() {
            let missed = play(&c, &base, g, i + round, Duration::from_secs(10)).await;
            assert!(missed.is_empty(), "no node is down yet: {missed:?}");
        }
    }
    check_games(&c, &base, &games).await;
    // nginx spread them over the nodes (round robin).
    let log = nginx.access_log();
    for n in &nodes {
        assert!(
            log.contains(&format!("upstream={}", n.addr())),
            "no request went to {}:\n{log}",
            n.base
        );
    }

    // A spectator through nginx (its upgrade passed on) sees a move made through nginx.
    let watched = &mut games[0];
    let ws_base = base.replacen("http", "ws", 1);
    let ws_url = format!("{ws_base}/v1/games/{}/ws", watched.id);
    let mut spectator = common::ws_connect(&c, &ws_url).await;
    let hello = common::ws_json(&mut spectator).await;
    assert_eq!(hello["type"], "hello", "{hello}");
    assert_eq!(hello["role"], "spectator", "{hello}");
    play(&c, &base, watched, 1, Duration::from_secs(10)).await;
    see_move(
        &mut spectator,
        watched.acked.len(),
        watched.acked.last().unwrap(),
    )
    .await;
    drop(spectator);

    // kill -9 the node that owns the watched game (its shard, as /v1/cluster shows it).
    let cluster = settled(&c, &base, 3).await;
    let shards = u32::try_from(cluster["shards"].as_u64().unwrap()).unwrap();
    let shard = chessd_server::cluster::placement::shard_of(
        &uuid::Uuid::parse_str(&watched.id).unwrap(),
        shards,
    );
    let owner = cluster["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| {
            n["shards"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s.as_i64() == Some(i64::from(shard)))
        })
        .and_then(|n| n["url"].as_str())
        .unwrap()
        .to_string();
    let victim = nodes.iter().position(|n| n.base == owner).unwrap();
    let mut killed = nodes.remove(victim);
    let _ = Command::new("kill")
        .args(["-9", &killed.child.id().to_string()])
        .status();
    // Reaped: its port is closed, so nginx's connects to it are refused, not half-answered.
    let _ = killed.child.wait();
    let died = Instant::now();

    // POSTs that nginx cannot even connect with to the dead node are passed on to another one
    // ($upstream_addr lists both): nothing had been sent, so nothing can happen twice. These
    // go first, before any GET: each nginx worker takes its nodes in turn and, after the first
    // refused connect, leaves the dead node out for `fail_timeout`, so the first request that
    // meets it in each worker must be a POST. Nine stateless moves go round three nodes three
    // times, whichever worker takes them.
    for _ in 0..9 {
        let (status, v) = post_json(
            &c,
            &format!("{base}/v1/position/move"),
            None,
            &json!({ "fen": START, "move": "e2e4" }),
        )
        .await;
        assert_eq!(status, 200, "a stateless move through nginx: {v}");
    }
    // nginx logs a request as it ends it, which may be just after the client has its answer.
    let passed_on = format!("upstream={}, ", killed.addr());
    let logged = Instant::now() + Duration::from_secs(2);
    loop {
        let posts: Vec<String> = nginx
            .access_log()
            .lines()
            .filter(|l| l.contains("\"POST /v1/position/move"))
            .map(str::to_string)
            .collect();
        if posts.iter().any(|l| l.contains(&passed_on)) {
            break;
        }
        assert!(
            Instant::now() < logged,
            "no move was passed on from the dead node {}:\n{}",
            killed.addr(),
            posts.join("\n")
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Every game goes on through nginx.
    let mut missed = Vec::new();
    let mut worst = Duration::ZERO;
    for (i, g) in games.iter_mut().enumerate() {
        missed.extend(play(&c, &base, g, i + 5, Duration::from_secs(10)).await);
        worst = worst.max(died.elapsed());
    }
    eprintln!(
        "after kill -9 of {}: every game played again within {worst:?} through nginx \
         (answers 502/503 on the way, each settled by reading the game: {missed:?})",
        killed.base
    );
    for round in 0..2 {
        for (i, g) in games.iter_mut().enumerate() {
            play(&c, &base, g, i + round + 7, Duration::from_secs(10)).await;
        }
    }
    drop(killed);
    check_games(&c, &base, &games).await;

    // nginx still answers everything: the cluster settles on the two nodes left, and a new
    // spectator through nginx sees the next move of the game the dead node served.
    settled(&c, &base, 2).await;
    let watched = &mut games[0];
    let ws_url = format!("{ws_base}/v1/games/{}/ws", watched.id);
    let mut spectator = common::ws_connect(&c, &ws_url).await;
    let hello = common::ws_json(&mut spectator).await;
    assert_eq!(
        hello["version"].as_u64(),
        Some(watched.acked.len() as u64),
        "{hello}"
    );
    play(&c, &base, watched, 3, Duration::from_secs(10)).await;
    see_move(
        &mut spectator,
        watched.acked.len(),
        watched.acked.last().unwrap(),
    )
    .await;
    drop(spectator);
    check_games(&c, &base, &games).await;
    drop(nginx);
}
