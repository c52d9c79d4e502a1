//! UCI move parsing in positions the input picks: see `chessd_fuzz::check_uci_move`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    chessd_fuzz::check_uci_move(data);
});
