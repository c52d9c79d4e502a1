//! Rebuilds the server when a migration is added or changed: `sqlx::migrate!` embeds the
//! `migrations/` folders at compile time (sqlx's documented build script).

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
