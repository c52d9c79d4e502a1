//! UCI protocol lines (engine output and GUI commands): see `chessd_fuzz::check_uci_protocol`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        chessd_fuzz::check_uci_protocol(text);
    }
});
