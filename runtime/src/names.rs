//! Names a rejection hints at (a registry's tool names, a tool's declared keys)
//! and the closest-name search behind an H1's "did you mean".
//!
//! The search is the same everywhere: case-insensitive Levenshtein distance, a
//! budget of a third of the given name's length (at least 2), closest first, ties
//! by name. [`closest`] scans a list; a registry's tool names are searched through
//! a [`NameIndex`], a trie of the lowercased names built once per registry, walked
//! with one distance row per node so that a whole subtree out of reach is skipped
//! at once, in one walk whose radius shrinks once enough names are found. An unknown name costs
//! about as much in a 10,000-tool registry as in a small one instead of a scan of
//! every name.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, LazyLock, OnceLock, RwLock};

/// A list of names shared by many rejections: the registry's tool names or a
/// tool's declared keys. Static for generated code, shared for dynamic registries.
#[derive(Debug, Clone)]
pub enum Names {
    /// Names compiled into the binary (a registry's tool names among them are
    /// searched through an index built on the first unknown name).
    Static(&'static [&'static str]),
    /// Names loaded at run time.
    Shared(Arc<[Box<str>]>),
    /// A registry's tool names loaded at run time, with their index.
    Indexed(Arc<NameIndex>),
}

impl Names {
    /// The names, in registry order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        let list = match self {
            Names::Static(s) => View::Static(s),
            Names::Shared(s) => View::Boxed(s),
            Names::Indexed(index) => index.names.view(),
        };
        (0..list.len()).map(move |i| list.get(i))
    }

    /// Up to `n` of these names closest to `given` (see [`closest`]), searched
    /// through an index for tool names.
    pub fn closest(&self, given: &str, n: usize) -> Vec<&str> {
        match self {
            Names::Static(s) => NameIndex::of_static(s).closest(given, n),
            Names::Shared(_) => closest(given, self.iter(), n),
            Names::Indexed(index) => index.closest(given, n),
        }
    }
}

/// The names a [`NameIndex`] holds.
#[derive(Debug)]
enum NameList {
    Static(&'static [&'static str]),
    Shared(Arc<[Box<str>]>),
}

impl NameList {
    fn view(&self) -> View<'_> {
        match self {
            NameList::Static(s) => View::Static(s),
            NameList::Shared(s) => View::Boxed(s),
        }
    }
}

/// A borrowed list of names, cheap to copy into an iterator.
#[derive(Clone, Copy)]
enum View<'a> {
    Static(&'static [&'static str]),
    Boxed(&'a [Box<str>]),
}

impl<'a> View<'a> {
    fn get(self, i: usize) -> &'a str {
        match self {
            View::Static(s) => s[i],
            View::Boxed(s) => &s[i],
        }
    }

    fn len(self) -> usize {
        match self {
            View::Static(s) => s.len(),
            View::Boxed(s) => s.len(),
        }
    }
}

/// A registry's tool names and the trie [`NameIndex::closest`] walks, built on
/// the first search (a registry that never sees an unknown name never builds it).
pub struct NameIndex {
    names: NameList,
    trie: OnceLock<Trie>,
}

impl fmt::Debug for NameIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NameIndex").field("names", &self.names.view().len()).field("built", &self.trie.get().is_some()).finish()
    }
}

impl NameIndex {
    /// An index over `names` (a registry's tool names, in any order).
    pub fn new(names: Arc<[Box<str>]>) -> NameIndex {
        NameIndex { names: NameList::Shared(names), trie: OnceLock::new() }
    }

    /// The index of a static name list, one per list for the life of the process
    /// (generated code's `ToolSet::NAMES`: there is one per registry).
    fn of_static(names: &'static [&'static str]) -> &'static NameIndex {
        type Key = (usize, usize);
        static INDEXES: LazyLock<RwLock<HashMap<Key, &'static NameIndex>>> = LazyLock::new(RwLock::default);
        let key = (names.as_ptr() as usize, names.len());
        if let Some(index) = INDEXES.read().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return index;
        }
        let mut indexes = INDEXES.write().unwrap_or_else(|e| e.into_inner());
        indexes.entry(key).or_insert_with(|| Box::leak(Box::new(NameIndex { names: NameList::Static(names), trie: OnceLock::new() })))
    }

    /// Up to `n` names closest to `given`, exactly as [`closest`] finds them.
    pub fn closest(&self, given: &str, n: usize) -> Vec<&str> {
        let names = self.names.view();
        let trie = self.trie.get_or_init(|| Trie::new((0..names.len()).map(|i| names.get(i))));
        trie.closest(given, n, |i| names.get(i))
    }
}

/// One trie node, in preorder: its subtree is the nodes up to `end`.
struct Node {
    /// The lowercased character on the edge into this node.
    ch: char,
    /// Characters from the root.
    depth: u32,
    /// The first node after this one's subtree.
    end: u32,
    /// The names that lowercase to this node's path: `ids[names.0..names.1]`.
    names: (u32, u32),
    /// The shortest and the longest name in this node's subtree, in characters.
    lengths: (u32, u32),
}

/// The lowercased names as a trie in preorder (node 0 the root), so that a walk
/// is a loop over the nodes that jumps past a subtree out of reach.
struct Trie {
    nodes: Vec<Node>,
    /// Indices into the name list, grouped by node.
    ids: Vec<u32>,
}

impl Trie {
    fn new<'a>(names: impl Iterator<Item = &'a str>) -> Trie {
        let mut lowered: Vec<(Vec<char>, u32)> = names.enumerate().map(|(i, name)| (lowercase(name, Vec::new()), i as u32)).collect();
        lowered.sort_unstable();
        let mut nodes = vec![Node { ch: '\0', depth: 0, end: 0, names: (0, 0), lengths: (u32::MAX, 0) }];
        let mut ids = Vec::with_capacity(lowered.len());
        // The nodes on the path to the previous name, root first.
        let mut path: Vec<usize> = vec![0];
        let mut previous: &[char] = &[];
        for (chars, id) in &lowered {
            let shared = previous.iter().zip(chars).take_while(|(a, b)| a == b).count();
            while path.len() > shared + 1 {
                let done = path.pop().expect("deeper than the shared prefix");
                nodes[done].end = nodes.len() as u32;
            }
            for (depth, &ch) in chars.iter().enumerate().skip(shared) {
                path.push(nodes.len());
                nodes.push(Node { ch, depth: depth as u32 + 1, end: 0, names: (ids.len() as u32, ids.len() as u32), lengths: (u32::MAX, 0) });
            }
            // Names that lowercase alike are adjacent once sorted, and a name comes
            // before its extensions: a node's ids are pushed in one run.
            let last = *path.last().expect("the root at least");
            ids.push(*id);
            nodes[last].names.1 += 1;
            let length = chars.len() as u32;
            for &on in &path {
                let lengths = &mut nodes[on].lengths;
                *lengths = (lengths.0.min(length), lengths.1.max(length));
            }
            previous = chars;
        }
        for done in path {
            nodes[done].end = nodes.len() as u32;
        }
        Trie { nodes, ids }
    }

    /// Up to `n` names within the budget of `given`, closest first, ties by name;
    /// `name` maps an index to its name.
    fn closest<'n>(&self, given: &str, n: usize, name: impl Fn(usize) -> &'n str) -> Vec<&'n str> {
        thread_local! {
            /// The buffers of this thread's searches, reused.
            static SCRATCH: RefCell<Walk> = RefCell::default();
        }
        let budget = (given.chars().count() / 3).max(2);
        SCRATCH.with_borrow_mut(|walk| {
            walk.given = lowercase(given, std::mem::take(&mut walk.given));
            walk.n = n;
            walk.found.clear();
            // One walk at the budget, the radius shrinking to the n-th best distance
            // found so far. (A first walk at radius 1 for near misses cost more than
            // it saved: with three names wanted it rarely ends the search.)
            walk.run(self, budget);
            walk.found.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| name(a.1 as usize).cmp(name(b.1 as usize))));
            walk.found.iter().take(n).map(|&(_, id)| name(id as usize)).collect()
        })
    }
}

/// Out of reach: larger than any radius.
const FAR: usize = usize::MAX / 2;

/// One search of a [`Trie`]: the given name lowercased, its distance rows (one
/// per depth) and the names found.
#[derive(Default)]
struct Walk {
    given: Vec<char>,
    rows: Vec<usize>,
    /// Distance and id of every name found within the radius at the time.
    found: Vec<(usize, u32)>,
    n: usize,
}

impl Walk {
    /// Every name within `radius` of the given name into `found`; once `n` are
    /// found the radius shrinks to the `n`-th smallest distance (a name at that
    /// distance can still win on its name, so equal distances stay in reach).
    fn run(&mut self, trie: &Trie, mut radius: usize) {
        let m = self.given.len();
        let width = m + 1;
        // No row deeper than the longest name (a very long given name must not
        // size the rows by itself) or than a name within reach can be.
        let deepest = (m + radius).min(trie.nodes[0].lengths.1 as usize);
        self.rows.clear();
        self.rows.extend(0..width);
        self.rows.resize(width * (deepest + 1), FAR);
        self.hit(trie, 0, m, &mut radius);
        let mut i = 1;
        while i < trie.nodes.len() {
            let node = &trie.nodes[i];
            let depth = node.depth as usize;
            let (shortest, longest) = (node.lengths.0 as usize, node.lengths.1 as usize);
            // Every name below is too long or too short to be within the radius.
            if shortest > m + radius || longest + radius < m {
                i = node.end as usize;
                continue;
            }
            let (before, after) = self.rows.split_at_mut(depth * width);
            let (prev, cur) = (&before[(depth - 1) * width..], &mut after[..width]);
            // Only cells within `radius` of the diagonal can be within reach (a
            // cell's distance is at least how far it is off the diagonal); the
            // cells just outside the band are written as out of reach for the next row.
            let (lo, hi) = (depth.saturating_sub(radius).max(1), (depth + radius).min(m));
            // The least distance a name below can have: from cell j, the rest of
            // the given name (m - j characters) meets the rest of a name (between
            // shortest - depth and longest - depth characters), which costs at
            // least the difference in length.
            let (fewest, most) = (shortest - depth, longest - depth);
            let bound = |j: usize, v: usize| v + (m - j).saturating_sub(most) + fewest.saturating_sub(m - j);
            let mut least = FAR;
            if lo == 1 {
                cur[0] = depth;
                least = bound(0, depth);
            } else {
                cur[lo - 1] = FAR;
            }
            for j in lo..=hi {
                let v = (prev[j - 1] + usize::from(self.given[j - 1] != node.ch)).min(prev[j] + 1).min(cur[j - 1] + 1);
                cur[j] = v;
                least = least.min(bound(j, v));
            }
            if hi < m {
                cur[hi + 1] = FAR;
            }
            if least > radius {
                i = node.end as usize;
                continue;
            }
            let distance = if hi == m { cur[m] } else { FAR };
            self.hit(trie, i, distance, &mut radius);
            i += 1;
        }
    }

    fn hit(&mut self, trie: &Trie, node: usize, distance: usize, radius: &mut usize) {
        let (from, to) = trie.nodes[node].names;
        if distance > *radius || from == to {
            return;
        }
        self.found.extend(trie.ids[from as usize..to as usize].iter().map(|&id| (distance, id)));
        if self.found.len() >= self.n {
            let (_, nth, _) = self.found.select_nth_unstable(self.n - 1);
            *radius = nth.0;
        }
    }
}

/// Up to `n` names within a small edit distance of `given` (case-insensitive
/// Levenshtein, at most a third of its length and at least 2), closest first,
/// ties by name. One pass over `names` without allocating per name: a name whose
/// length alone puts it out of reach is skipped, and a distance row that exceeds
/// the budget stops the comparison. A registry's tool names are better searched
/// through a [`NameIndex`] (same result).
pub fn closest<'a>(given: &str, names: impl Iterator<Item = &'a str>, n: usize) -> Vec<&'a str> {
    let budget = (given.chars().count() / 3).max(2);
    let given = lowercase(given, Vec::new());
    let (mut name_buf, mut rows) = (Vec::new(), Vec::new());
    let mut scored: Vec<(usize, &str)> = Vec::new();
    for name in names {
        name_buf = lowercase(name, name_buf);
        if name_buf.len().abs_diff(given.len()) > budget {
            continue;
        }
        if let Some(d) = bounded_distance(&given, &name_buf, budget, &mut rows) {
            scored.push((d, name));
        }
    }
    scored.sort_unstable();
    scored.into_iter().take(n).map(|(_, name)| name).collect()
}

/// The characters of `s` lowercased as `str::to_lowercase` does, into `buf` (reused).
fn lowercase(s: &str, mut buf: Vec<char>) -> Vec<char> {
    buf.clear();
    if s.is_ascii() {
        buf.extend(s.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    } else if s.contains('Σ') {
        // A final sigma lowercases by context; the whole-string rule knows it.
        buf.extend(s.to_lowercase().chars());
    } else {
        buf.extend(s.chars().flat_map(char::to_lowercase));
    }
    buf
}

/// The Levenshtein distance of `a` and `b` if it is at most `budget`; `rows` is scratch space.
fn bounded_distance(a: &[char], b: &[char], budget: usize, rows: &mut Vec<usize>) -> Option<usize> {
    let width = b.len() + 1;
    rows.clear();
    rows.extend(0..width);
    rows.extend(std::iter::repeat_n(0, width));
    let (prev, cur) = rows.split_at_mut(width);
    let (mut prev, mut cur) = (prev, cur);
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        let mut row_min = cur[0];
        for (j, cb) in b.iter().enumerate() {
            let v = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
            cur[j + 1] = v;
            row_min = row_min.min(v);
        }
        // Distances never shrink from one row to the next's minimum.
        if row_min > budget {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(prev[b.len()]).filter(|d| *d <= budget)
}

/// Levenshtein distance over characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    bounded_distance(&a, &b, usize::MAX, &mut Vec::new()).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The suggestions before the one-pass search: every name lowercased and compared in full.
    fn closest_by_full_scan<'a>(given: &str, names: &[&'a str], n: usize) -> Vec<&'a str> {
        let full = |a: &str, b: &str| {
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            let mut prev: Vec<usize> = (0..=b.len()).collect();
            for (i, ca) in a.iter().enumerate() {
                let mut cur = vec![i + 1; b.len() + 1];
                for (j, cb) in b.iter().enumerate() {
                    cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
                }
                prev = cur;
            }
            prev[b.len()]
        };
        let budget = (given.chars().count() / 3).max(2);
        let mut scored: Vec<(usize, &str)> = names.iter().map(|n| (full(&given.to_lowercase(), &n.to_lowercase()), *n)).filter(|(d, _)| *d <= budget).collect();
        scored.sort();
        scored.into_iter().take(n).map(|(_, n)| n).collect()
    }

    /// A deterministic word generator over a small alphabet (so that many names
    /// are in reach), with case changes, non-ASCII letters and a final sigma.
    fn words(seed: u64) -> impl FnMut(usize) -> String {
        let mut seed = seed;
        let alphabet: Vec<char> = "abcdeE_tΣσé".chars().collect();
        move |len| {
            (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect()
        }
    }

    #[test]
    fn scan_and_index_equal_the_full_scan() {
        let mut word = words(0x2545_f491_4f6c_dd1d);
        let mut names: Vec<String> = (0..400).map(|i| word(3 + i % 14)).collect();
        // Names that lowercase alike, an empty name and a prefix of another.
        names.extend(["Abc", "abc", "ABC", "", "ab", "abcdeEt"].map(String::from));
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let index = NameIndex::new(names.iter().map(|n| n.as_str().into()).collect());
        for i in 0..600 {
            let given = if i < 400 { word(1 + i % 18) } else { refs[i - 200].to_uppercase() };
            let want = closest_by_full_scan(&given, &refs, 3);
            assert_eq!(closest(&given, refs.iter().copied(), 3), want, "scan: {given}");
            assert_eq!(index.closest(&given, 3), want, "index: {given}");
            assert_eq!(index.closest(&given, 50), closest_by_full_scan(&given, &refs, 50), "index, 50: {given}");
        }
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn a_static_list_has_one_index() {
        static NAMES: &[&str] = &["get_balance", "list_accounts", "transfer_funds"];
        assert!(std::ptr::eq(NameIndex::of_static(NAMES), NameIndex::of_static(NAMES)));
        assert_eq!(Names::Static(NAMES).closest("TRANSFER_FUND", 3), ["transfer_funds"]);
        assert!(Names::Static(NAMES).closest("wipe_disk", 3).is_empty());
        let empty: &'static [&'static str] = &[];
        assert!(Names::Static(empty).closest("anything", 3).is_empty());
        // A given name far longer than any name neither sizes the search nor matches.
        assert!(Names::Static(NAMES).closest(&"a".repeat(100_000), 3).is_empty());
    }
}
