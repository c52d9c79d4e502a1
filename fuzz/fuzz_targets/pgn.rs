//! PGN reading, push and pull, and writing back: see `chessd_fuzz::check_pgn`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    chessd_fuzz::check_pgn(data);
});
