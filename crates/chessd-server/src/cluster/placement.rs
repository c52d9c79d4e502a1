//! Which node should own which shard: rendezvous (highest random weight) hashing over the live
//! nodes. Every node computes the same answer from the same list, and when a node joins or
//! leaves only the shards it wins or held move.

use uuid::Uuid;

/// The shard game `id` belongs to, of `shards`.
pub fn shard_of(id: &Uuid, shards: u32) -> i32 {
    let n = u64::from(shards.max(1));
    (mix(u64::from_le_bytes(
        id.as_bytes()[..8].try_into().unwrap_or([0; 8]),
    )) % n) as i32
}

/// The node of `nodes` (ids) that should own `shard`: the one with the highest weight.
pub fn desired_owner<'a>(shard: i32, nodes: &[&'a str]) -> Option<&'a str> {
    nodes
        .iter()
        .copied()
        .max_by_key(|node| (weight(node, shard), *node))
}

/// The weight of `node` for `shard`: a hash of both (FNV-1a, then a mixer).
fn weight(node: &str, shard: i32) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in node.bytes().chain(shard.to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    mix(h)
}

/// SplitMix64's finaliser: spreads every input bit over the output.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_spread_evenly_and_move_only_with_their_node() {
        let three = ["node-a", "node-b", "node-c"];
        let mut counts = [0; 3];
        for shard in 0..300 {
            let owner = desired_owner(shard, &three).unwrap();
            counts[three.iter().position(|n| *n == owner).unwrap()] += 1;
            // Without node-c, only node-c's shards move.
            let two = desired_owner(shard, &three[..2]).unwrap();
            if owner != "node-c" {
                assert_eq!(owner, two);
            }
        }
        assert!(
            counts.iter().all(|&c| (60..=140).contains(&c)),
            "{counts:?}"
        );
        assert_eq!(desired_owner(7, &[]), None);
    }

    #[test]
    fn games_spread_over_shards() {
        let mut counts = vec![0; 16];
        for _ in 0..16_000 {
            counts[shard_of(&Uuid::new_v4(), 16) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (800..=1200).contains(&c)),
            "{counts:?}"
        );
    }
}
