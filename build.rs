//! Tells the tests which outside programs this machine has, so that a test needing a missing
//! one is reported as ignored with its reason (`cargo test` lists it), never as passed. Under
//! `CI=true` a missing program fails the build instead: CI installs every one of them.

use std::path::Path;

/// Each program the tests use: its cfg name, where Debian installs it, and the package.
const PROGRAMS: [(&str, &[&str], &str); 11] = [
    (
        "has_socat",
        &["/usr/bin/socat", "/usr/local/bin/socat"],
        "socat",
    ),
    (
        "has_stockfish",
        &[
            "/usr/games/stockfish",
            "/usr/bin/stockfish",
            "/usr/local/bin/stockfish",
        ],
        "stockfish",
    ),
    ("has_sjeng", &["/usr/games/sjeng"], "sjeng"),
    ("has_phalanx", &["/usr/games/phalanx"], "phalanx"),
    ("has_toga2", &["/usr/games/toga2"], "toga2"),
    ("has_fairymax", &["/usr/games/fairymax"], "fairymax"),
    ("has_gnuchess", &["/usr/games/gnuchess"], "gnuchess"),
    ("has_chromium", &["/usr/bin/chromium"], "chromium"),
    (
        "has_chromedriver",
        &["/usr/bin/chromedriver"],
        "chromium-driver",
    ),
    (
        "has_postgres",
        &[
            "/usr/lib/postgresql/18/bin/initdb",
            "/usr/lib/postgresql/17/bin/initdb",
            "/usr/lib/postgresql/16/bin/initdb",
            "/usr/lib/postgresql/15/bin/initdb",
            "/usr/lib/postgresql/14/bin/initdb",
            "/usr/lib/postgresql/13/bin/initdb",
        ],
        "postgresql",
    ),
    ("has_nginx", &["/usr/sbin/nginx"], "nginx-light"),
];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CI");
    // Installing a package changes its folder: look again then (and only then).
    for dir in [
        "/usr/bin",
        "/usr/games",
        "/usr/local/bin",
        "/usr/sbin",
        "/usr/lib/postgresql",
    ] {
        if Path::new(dir).is_dir() {
            println!("cargo::rerun-if-changed={dir}");
        }
    }
    let ci = std::env::var("CI").as_deref() == Ok("true");
    for (cfg, candidates, package) in PROGRAMS {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        if candidates.iter().any(|p| Path::new(p).is_file()) {
            println!("cargo::rustc-cfg={cfg}");
        } else if ci {
            panic!("CI=true needs {package} (apt-get install {package}): {candidates:?}");
        }
    }
}
