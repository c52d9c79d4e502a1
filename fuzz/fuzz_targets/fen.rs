//! FEN parsing, strict and lenient: see `chessd_fuzz::check_fen`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        chessd_fuzz::check_fen(text);
    }
});
