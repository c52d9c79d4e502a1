//! Generates the slider attack tables at build time.
//!
//! With BMI2 in the target features the tables are indexed by `pext(occupied, mask)`; otherwise by
//! fancy magics found here with a fixed-seed search, so the build is reproducible.

#![allow(clippy::unwrap_used)] // a build script may fail loudly

use std::{env, fmt::Write as _, fs, path::Path};

const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

fn slide(sq: u32, occ: u64, dirs: &[(i32, i32)]) -> u64 {
    let (f0, r0) = ((sq % 8) as i32, (sq / 8) as i32);
    let mut out = 0u64;
    for &(df, dr) in dirs {
        let (mut f, mut r) = (f0 + df, r0 + dr);
        while (0..8).contains(&f) && (0..8).contains(&r) {
            let b = 1u64 << (r * 8 + f);
            out |= b;
            if occ & b != 0 {
                break;
            }
            f += df;
            r += dr;
        }
    }
    out
}

fn relevant_mask(sq: u32, dirs: &[(i32, i32)]) -> u64 {
    let (f0, r0) = ((sq % 8) as i32, (sq / 8) as i32);
    let mut out = 0u64;
    for &(df, dr) in dirs {
        let (mut f, mut r) = (f0 + df, r0 + dr);
        // Stop one short of the edge: the edge square never blocks anything beyond it.
        while (0..8).contains(&(f + df)) && (0..8).contains(&(r + dr)) {
            out |= 1u64 << (r * 8 + f);
            f += df;
            r += dr;
        }
    }
    out
}

fn subsets(mask: u64) -> Vec<u64> {
    let mut out = Vec::with_capacity(1 << mask.count_ones());
    let mut sub = 0u64;
    loop {
        out.push(sub);
        sub = sub.wrapping_sub(mask) & mask;
        if sub == 0 {
            break;
        }
    }
    out
}

fn pext(val: u64, mut mask: u64) -> u64 {
    let mut res = 0u64;
    let mut bit = 1u64;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if val & low != 0 {
            res |= bit;
        }
        bit <<= 1;
        mask &= mask - 1;
    }
    res
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn sparse(&mut self) -> u64 {
        self.next() & self.next() & self.next()
    }
}

/// One piece kind's table: per square (mask, magic, shift, offset) and the attack sets.
struct Table {
    entries: Vec<(u64, u64, u32, usize)>,
    attacks: Vec<u64>,
}

fn build(dirs: &[(i32, i32)], use_pext: bool, rng: &mut Rng) -> Table {
    let mut entries = Vec::new();
    let mut attacks = Vec::new();
    for sq in 0..64 {
        let mask = relevant_mask(sq, dirs);
        let bits = mask.count_ones();
        let subs = subsets(mask);
        let offset = attacks.len();
        let mut table = vec![0u64; 1 << bits];
        let magic = if use_pext {
            for &s in &subs {
                table[pext(s, mask) as usize] = slide(sq, s, dirs);
            }
            0
        } else {
            'search: loop {
                let magic = rng.sparse();
                if (mask.wrapping_mul(magic) >> 56).count_ones() < 6 {
                    continue;
                }
                let mut used = vec![u64::MAX; 1 << bits];
                for &s in &subs {
                    let idx = (s.wrapping_mul(magic) >> (64 - bits)) as usize;
                    let att = slide(sq, s, dirs);
                    if used[idx] == u64::MAX {
                        used[idx] = att;
                    } else if used[idx] != att {
                        continue 'search;
                    }
                }
                for (i, a) in used.iter().enumerate() {
                    table[i] = if *a == u64::MAX { 0 } else { *a };
                }
                break magic;
            }
        };
        attacks.extend(table);
        entries.push((mask, magic, 64 - bits, offset));
    }
    Table { entries, attacks }
}

fn emit(out: &mut String, name: &str, t: &Table, use_pext: bool) {
    writeln!(
        out,
        "pub(crate) static {name}_ENTRIES: [SliderEntry; 64] = ["
    )
    .unwrap();
    for (mask, magic, shift, offset) in &t.entries {
        if use_pext {
            // PEXT indexing needs neither magic nor shift: keep the entry at 16 bytes.
            writeln!(out, "SliderEntry {{ mask: {mask:#x}, offset: {offset} }},").unwrap();
        } else {
            writeln!(
                out,
                "SliderEntry {{ mask: {mask:#x}, magic: {magic:#x}, shift: {shift}, offset: {offset} }},"
            )
            .unwrap();
        }
    }
    writeln!(out, "];").unwrap();
    writeln!(
        out,
        "pub(crate) static {name}_ATTACKS: [u64; {}] = [",
        t.attacks.len()
    )
    .unwrap();
    for chunk in t.attacks.chunks(8) {
        for a in chunk {
            write!(out, "{a:#x},").unwrap();
        }
        out.push('\n');
    }
    writeln!(out, "];").unwrap();
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let features = env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let use_pext = features.split(',').any(|f| f == "bmi2");
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let rook = build(&ROOK_DIRS, use_pext, &mut rng);
    let bishop = build(&BISHOP_DIRS, use_pext, &mut rng);
    let mut out = String::new();
    writeln!(out, "// Generated by build.rs; pext indexing: {use_pext}").unwrap();
    emit(&mut out, "ROOK", &rook, use_pext);
    emit(&mut out, "BISHOP", &bishop, use_pext);
    let dest = Path::new(&env::var("OUT_DIR").unwrap()).join("sliders.rs");
    fs::write(dest, out).unwrap();
}
