//! The environment knobs of the benches (`CHESSD_BENCH_RUNS` and the like). Each bench that
//! reads one includes this file with `#[path = "support/env.rs"] mod env;`.

/// The environment variable `name` parsed, or `default` when it is unset or does not parse.
pub(crate) fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
