//! Perft speed: chessd-core against cozy-chess and shakmaty (placeholder, being written).
fn main() {}
