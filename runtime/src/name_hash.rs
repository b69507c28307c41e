//! Exact lookup of a tool name among a registry's names: one hash and, for a
//! name that is there, one comparison (a binary search over sorted names
//! compares a dozen strings at 10,000 tools, and a few even at ten).
//!
//! Open addressing with linear probing over a table at most half full. The
//! names come from the trusted registry, so how long a probe can run is fixed
//! when the index is built: a name the model made up stops at the first empty
//! slot, however it was chosen.

/// Slots of a name index: each holds a name's position + 1, or 0 when empty.
#[derive(Debug, Clone)]
pub(crate) struct NameHash {
    slots: Box<[u32]>,
}

impl NameHash {
    /// The index of `names` (the position of each is what [`NameHash::get`] returns).
    pub(crate) fn new<'n>(names: impl ExactSizeIterator<Item = &'n str>) -> NameHash {
        let len = (names.len() * 2).next_power_of_two().max(2);
        let mut slots = vec![0u32; len].into_boxed_slice();
        for (i, name) in names.enumerate() {
            let mut at = slot(name, len);
            while slots[at] != 0 {
                at = (at + 1) & (len - 1);
            }
            slots[at] = u32::try_from(i + 1).expect("fewer than 2^32 names");
        }
        NameHash { slots }
    }

    /// The position of `name`, where `name_at` gives the name at a position.
    #[inline]
    pub(crate) fn get<'n>(&self, name: &str, name_at: impl Fn(usize) -> &'n str) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut at = slot(name, self.slots.len());
        loop {
            let i = (self.slots[at] as usize).checked_sub(1)?;
            if name_at(i) == name {
                return Some(i);
            }
            at = (at + 1) & mask;
        }
    }
}

/// The first slot of `name` in a table of `len` slots (a power of two).
#[inline]
fn slot(name: &str, len: usize) -> usize {
    (hash(name.as_bytes()) as usize) & (len - 1)
}

/// A fast hash of short strings, eight bytes at a time (not for untrusted keys
/// of a table: see the module's note).
#[inline]
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mix = |h: u64, word: u64| (h ^ word).wrapping_mul(K).rotate_left(29);
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        h = mix(h, u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        h = mix(h, u64::from_le_bytes(last));
    }
    h ^ (h >> 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_name_and_nothing_else() {
        for n in [0usize, 1, 2, 3, 10, 100, 1000] {
            let names: Vec<String> = (0..n).map(|i| format!("tool_{i}")).collect();
            let index = NameHash::new(names.iter().map(String::as_str));
            let at = |i: usize| names[i].as_str();
            for (i, name) in names.iter().enumerate() {
                assert_eq!(index.get(name, at), Some(i), "{name}");
            }
            for miss in ["", "tool_", "tool_1000", "Tool_1", "tool_1 ", "tool_\u{0}", "x"] {
                if !names.iter().any(|n| n == miss) {
                    assert_eq!(index.get(miss, at), None, "{miss:?} among {n}");
                }
            }
        }
    }

    #[test]
    fn names_that_share_a_slot_are_told_apart() {
        // Three names in eight slots, two of them hashing to the same slot.
        let pool: Vec<String> = (0..64).map(|i| format!("n{i}")).collect();
        let (a, b) = pool.iter().enumerate().find_map(|(i, a)| pool[i + 1..].iter().find(|b| slot(a, 8) == slot(b, 8)).map(|b| (a.as_str(), b.as_str()))).expect("64 names in 8 slots share one");
        let names = [a, "other", b];
        let index = NameHash::new(names.iter().copied());
        assert_eq!(index.slots.len(), 8);
        for (i, name) in names.iter().enumerate() {
            assert_eq!(index.get(name, |i| names[i]), Some(i));
        }
        assert_eq!(index.get("n64", |i| names[i]), None);
    }
}
