//! `chessd` with no subcommand serves and takes `serve`'s flags; a busy port is named in the
//! error, before any store is created; logs carry no colour codes when stderr is not a terminal.

use std::{
    io::{BufRead, BufReader},
    process::{Command, Stdio},
    time::Duration,
};

fn chessd() -> Command {
    Command::new(env!("CARGO_BIN_EXE_chessd"))
}

#[test]
fn the_default_command_takes_serves_flags_and_logs_without_colour() {
    let mut child = chessd()
        .args(["--bind", "127.0.0.1:0"])
        .env("RUST_LOG", "info")
        .env("CHESSD_STORE__URL", "memory")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(
        line.starts_with("chessd listening on http://127.0.0.1:"),
        "{line}"
    );
    std::thread::sleep(Duration::from_millis(200));
    // SIGTERM: a graceful stop, after which stderr ends.
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(child.wait().unwrap().success());
    assert!(err.contains("INFO"), "{err}");
    assert!(!err.contains('\u{1b}'), "ANSI codes in a pipe: {err:?}");
    // Flags of serve only go with serve or no subcommand.
    let out = chessd().args(["perft", "--bind", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_busy_port_is_named_in_the_error_and_no_store_is_created() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    // The default store (data/chessd.sqlite under the working directory): the second server
    // must not create it before finding the port taken.
    let dir = std::env::temp_dir().join(format!("chessd-busy-port-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = chessd()
        .args(["serve", "--bind", &addr])
        .current_dir(&dir)
        .env("RUST_LOG", "warn")
        .env_remove("CHESSD_STORE__URL")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("cannot listen on {addr}")), "{err}");
    assert!(!dir.join("data").exists(), "a store was created: {err}");
    let _ = std::fs::remove_dir_all(&dir);
}
