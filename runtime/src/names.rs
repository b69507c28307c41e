//! Names a rejection hints at (a registry's tool names, a tool's declared keys)
//! and the closest-name search behind an H1's "did you mean".
//!
//! The search is the same everywhere: case-insensitive Levenshtein distance, a
//! budget of a third of the given name's length (at least 2), closest first, ties
//! by name. [`closest`] scans a list; a registry's tool names are searched through
//! a [`NameIndex`], a trie of the lowercased names built once per registry, walked
//! with one column of distances per node, bit-parallel (Myers, in Hyyrö's form for
//! whole strings: a few word operations a node), so that a whole subtree out of
//! reach is skipped at once — by the distances so far, the lengths of the names
//! below, or the characters of the given name that none of them has — in one walk
//! whose radius shrinks once enough names are found. An unknown name costs about
//! as much in a 10,000-tool registry as in a small one instead of a scan of every
//! name.

use std::borrow::Cow;
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
    /// A registry's tool names compiled into the binary, with their index
    /// (a generated `ToolCall`'s, held beside its name lookup).
    Compiled(&'static NameIndex),
}

impl Names {
    /// The names, in registry order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        let list = match self {
            Names::Static(s) => View::Static(s),
            Names::Shared(s) => View::Boxed(s),
            Names::Indexed(index) => index.names.view(),
            Names::Compiled(index) => index.names.view(),
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
            Names::Compiled(index) => index.closest(given, n),
        }
    }

    /// [`Names::closest`] (with `Some((given, n))`) or all the names (`None`), as
    /// values that outlive `self`: names compiled into the binary borrowed, names
    /// loaded at run time copied.
    pub(crate) fn to_static(&self, closest_to: Option<(&str, usize)>) -> Vec<Cow<'static, str>> {
        match (self, closest_to) {
            (Names::Static(s), None) => s.iter().map(|name| Cow::Borrowed(*name)).collect(),
            (Names::Static(s), Some((given, n))) => NameIndex::of_static(s).closest_static(given, n),
            (Names::Indexed(index), Some((given, n))) => index.closest_static(given, n),
            (Names::Compiled(index), Some((given, n))) => index.closest_static(given, n),
            (_, None) => self.iter().map(|name| Cow::Owned(name.to_owned())).collect(),
            (Names::Shared(_), Some((given, n))) => self.closest(given, n).into_iter().map(|name| Cow::Owned(name.to_owned())).collect(),
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

    /// The index of names compiled into the binary, for a `static` (its trie
    /// is built on the first search).
    pub(crate) const fn compiled(names: &'static [&'static str]) -> NameIndex {
        NameIndex { names: NameList::Static(names), trie: OnceLock::new() }
    }

    /// The index of a static name list, one per list for the life of the process
    /// (a `ToolSet::NAMES` given as [`Names::Static`]: there is one per registry).
    fn of_static(names: &'static [&'static str]) -> &'static NameIndex {
        type Key = (usize, usize);
        static INDEXES: LazyLock<RwLock<HashMap<Key, &'static NameIndex>>> = LazyLock::new(RwLock::default);
        let key = (names.as_ptr() as usize, names.len());
        if let Some(index) = INDEXES.read().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return index;
        }
        let mut indexes = INDEXES.write().unwrap_or_else(|e| e.into_inner());
        indexes.entry(key).or_insert_with(|| Box::leak(Box::new(NameIndex::compiled(names))))
    }

    /// Up to `n` names closest to `given`, exactly as [`closest`] finds them.
    pub fn closest(&self, given: &str, n: usize) -> Vec<&str> {
        let names = self.names.view();
        self.trie().closest(given, n, |i| names.get(i), |name| name)
    }

    /// [`NameIndex::closest`] as values that outlive the index: names compiled
    /// into the binary borrowed, names loaded at run time copied.
    fn closest_static(&self, given: &str, n: usize) -> Vec<Cow<'static, str>> {
        match self.names {
            NameList::Static(s) => self.trie().closest(given, n, |i| s[i], Cow::Borrowed),
            NameList::Shared(_) => self.closest(given, n).into_iter().map(|name| Cow::Owned(name.to_owned())).collect(),
        }
    }

    /// The trie of the names (built on the first call); its ids index the names.
    fn trie(&self) -> &Trie {
        let names = self.names.view();
        self.trie.get_or_init(|| Trie::new((0..names.len()).map(|i| names.get(i))))
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
    /// The [`class`]es of the characters of the names in this node's subtree.
    classes: u64,
    /// Whether this node is the only child of a node (not the root) with no
    /// name of its own: the names below are its parent's, so are `lengths` and
    /// `classes`, and a walk that reaches it has just checked them.
    lone: bool,
}

/// A character's class, one of 64, for [`Node::classes`]: letters, digits, `_`,
/// `-` and `.` each their own, other characters sharing the rest. A name without
/// a character's class has not that character.
fn class(c: char) -> u32 {
    match c {
        'a'..='z' => c as u32 - 'a' as u32,
        '0'..='9' => 26 + c as u32 - '0' as u32,
        '_' => 36,
        '-' => 37,
        '.' => 38,
        _ => 39 + c as u32 % 25,
    }
}

/// How many characters of one class [`Walk::count_beyond`] counts at most.
const COUNTS: usize = 8;

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
        let mut nodes = vec![Node { ch: '\0', depth: 0, end: 0, names: (0, 0), lengths: (u32::MAX, 0), classes: 0, lone: false }];
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
                nodes.push(Node { ch, depth: depth as u32 + 1, end: 0, names: (ids.len() as u32, ids.len() as u32), lengths: (u32::MAX, 0), classes: 0, lone: false });
            }
            // Names that lowercase alike are adjacent once sorted, and a name comes
            // before its extensions: a node's ids are pushed in one run.
            let last = *path.last().expect("the root at least");
            ids.push(*id);
            nodes[last].names.1 += 1;
            let length = chars.len() as u32;
            let classes = chars.iter().fold(0, |classes, &c| classes | 1 << class(c));
            for &on in &path {
                let node = &mut nodes[on];
                node.lengths = (node.lengths.0.min(length), node.lengths.1.max(length));
                node.classes |= classes;
            }
            previous = chars;
        }
        for done in path {
            nodes[done].end = nodes.len() as u32;
        }
        // A node's first child is the next node; it is the only one when its
        // subtree ends where its parent's does.
        for parent in 1..nodes.len() {
            let (first, end) = (parent + 1, nodes[parent].end);
            if nodes[parent].names.0 == nodes[parent].names.1 && first < end as usize && nodes[first].end == end {
                nodes[first].lone = true;
            }
        }
        Trie { nodes, ids }
    }

    /// Up to `n` names within the budget of `given`, closest first, ties by name,
    /// each as `out` makes it; `name` maps an index to its name.
    fn closest<'n, T>(&self, given: &str, n: usize, name: impl Fn(usize) -> &'n str, out: impl Fn(&'n str) -> T) -> Vec<T> {
        if n == 0 {
            return Vec::new();
        }
        thread_local! {
            /// The buffers of this thread's searches, reused.
            static SCRATCH: RefCell<(Walk<u64>, Walk<u128>)> = RefCell::default();
        }
        let budget = (given.chars().count() / 3).max(2);
        SCRATCH.with_borrow_mut(|(short, long)| {
            let given = lowercase(given, std::mem::take(&mut short.given));
            // One walk at the budget, the radius shrinking to the n-th best distance
            // found so far. (A first walk at radius 1 for near misses cost more than
            // it saved: with three names wanted it rarely ends the search.)
            let found = match given.len() {
                1..=64 => short.run(self, given, n, budget),
                65..=128 => long.run(self, given, n, budget),
                // Empty, or longer than any walk's bit vectors (an unknown name is
                // kept to 65 characters, so only a direct search gives one): the scan.
                _ => {
                    let names = (0..self.ids.len()).map(&name);
                    let picked = closest_lowered(&given, budget, names, n);
                    short.given = given;
                    return picked.into_iter().map(out).collect();
                }
            };
            found.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| name(a.1 as usize).cmp(name(b.1 as usize))));
            found.iter().take(n).map(|&(_, id)| out(name(id as usize))).collect()
        })
    }
}

/// A bit vector of a [`Walk`]: bit `i` is row `i + 1` of a distance column.
trait Bits: Copy + Default + Eq + std::ops::BitAnd<Output = Self> + std::ops::BitOr<Output = Self> + std::ops::BitXor<Output = Self> + std::ops::Not<Output = Self> {
    /// The lowest `i` bits set (`i` at most the width).
    fn low(i: usize) -> Self;
    /// Bit `i` as 0 or 1.
    fn bit(self, i: usize) -> usize;
    /// Addition modulo the width.
    fn plus(self, other: Self) -> Self;
    /// Shifted one bit up, `lowest` the new bit 0.
    fn up(self, lowest: bool) -> Self;
    /// How many bits are set.
    fn ones(self) -> usize;
}

macro_rules! bits {
    ($t:ty) => {
        impl Bits for $t {
            #[inline(always)]
            fn low(i: usize) -> $t {
                if i >= <$t>::BITS as usize { !0 } else { (1 << i) - 1 }
            }
            #[inline(always)]
            fn bit(self, i: usize) -> usize {
                ((self >> i) & 1) as usize
            }
            #[inline(always)]
            fn plus(self, other: $t) -> $t {
                self.wrapping_add(other)
            }
            #[inline(always)]
            fn up(self, lowest: bool) -> $t {
                (self << 1) | <$t>::from(lowest)
            }
            #[inline(always)]
            fn ones(self) -> usize {
                self.count_ones() as usize
            }
        }
    };
}
bits!(u64);
bits!(u128);

/// One search of a [`Trie`] for a given name of at most `B`'s width in
/// characters: Myers's bit-parallel edit distance (in Hyyrö's form for whole
/// strings) stepped along the trie, one column of distances per depth held as
/// its vertical differences, so that a node costs a few word operations
/// whatever the radius. The buffers are reused from search to search.
#[derive(Default)]
struct Walk<B> {
    given: Vec<char>,
    /// The rows of `given` holding each ASCII character.
    ascii: Vec<B>,
    /// The same for the other characters of `given`.
    other: Vec<(char, B)>,
    /// The classes of the characters of `given`, and how many it has of each,
    /// bit-sliced: class `c` is in `counts[k]` when `given` has more than `k`
    /// characters of it (for `k` below [`COUNTS`]), so that the characters of a
    /// set of classes are counted with a few population counts, without a branch.
    classes: u64,
    counts: [u64; COUNTS],
    /// How many of `counts` a search uses: the most characters of one class, at most [`COUNTS`].
    depth_of_counts: usize,
    /// One column per depth: rows going up (`+1`) and down (`-1`) from the row
    /// above, and the last row's distance.
    columns: Vec<(B, B, usize)>,
    /// Distance and id of every name found within the radius at the time.
    found: Vec<(usize, u32)>,
    n: usize,
}

impl<B: Bits> Walk<B> {
    /// [`Walk::walk`], with the processor's population count where it has one:
    /// x86-64's baseline has none, and counted in software the bits of the reach
    /// test (two counts a node) were a quarter of a walk.
    fn run(&mut self, trie: &Trie, given: Vec<char>, n: usize, radius: usize) -> &mut Vec<(usize, u32)> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the processor has the instruction (just detected).
            return unsafe { self.walk_popcnt(trie, given, n, radius) };
        }
        self.walk(trie, given, n, radius)
    }

    /// [`Walk::walk`] compiled with the `popcnt` instruction.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    fn walk_popcnt(&mut self, trie: &Trie, given: Vec<char>, n: usize, radius: usize) -> &mut Vec<(usize, u32)> {
        self.walk(trie, given, n, radius)
    }

    /// Every name of `trie` within `radius` of `given` (lowercased, 1 to `B`'s
    /// width characters) into `found`; once `n` are found the radius shrinks to
    /// the `n`-th smallest distance (a name at that distance can still win on its
    /// name, so equal distances stay in reach).
    #[inline(always)]
    fn walk(&mut self, trie: &Trie, given: Vec<char>, n: usize, mut radius: usize) -> &mut Vec<(usize, u32)> {
        let m = given.len();
        self.given = given;
        self.n = n;
        self.found.clear();
        // All zero between searches: each search clears the rows it set (a
        // kilobyte or two cleared whole every time would cost more than the rest).
        self.ascii.resize(128, B::default());
        self.other.clear();
        self.classes = 0;
        self.counts = [0; COUNTS];
        self.depth_of_counts = 0;
        for (row, &c) in self.given.iter().enumerate() {
            let bit = B::low(row + 1) ^ B::low(row);
            let class = 1 << class(c);
            self.classes |= class;
            // The first count of this class without it: the class's next count.
            if let Some(k) = self.counts.iter().position(|&count| count & class == 0) {
                self.counts[k] |= class;
                self.depth_of_counts = self.depth_of_counts.max(k + 1);
            }
            match self.ascii.get_mut(c as usize) {
                Some(rows) => *rows = *rows | bit,
                None => match self.other.iter_mut().find(|(o, _)| *o == c) {
                    Some((_, rows)) => *rows = *rows | bit,
                    None => self.other.push((c, bit)),
                },
            }
        }
        // No column deeper than the longest name (a very long given name must not
        // size them by itself) or than a name within reach can be.
        let deepest = (m + radius).min(trie.nodes[0].lengths.1 as usize);
        self.columns.clear();
        self.columns.resize(deepest + 1, (B::default(), B::default(), 0));
        // Depth 0, the empty prefix: row i at distance i.
        self.columns[0] = (B::low(m), B::default(), m);
        let mut held = (0, self.columns[0]);
        self.hit(trie, 0, m, &mut radius);
        let mut i = 1;
        while i < trie.nodes.len() {
            let node = &trie.nodes[i];
            let depth = node.depth as usize;
            let (shortest, longest) = (node.lengths.0 as usize, node.lengths.1 as usize);
            // A lone node is reached only from its parent (a jump lands past a
            // whole subtree, never inside one), which passed these two tests with
            // the same names below and the same radius (no name of its own found).
            if !node.lone {
                // Every name below is too long or too short to be within the radius.
                if shortest > m + radius || longest + radius < m {
                    i = node.end as usize;
                    continue;
                }
                // Every character of the given name whose class no name below has
                // costs an edit of its own.
                let missing = self.classes & !node.classes;
                if missing != 0 && self.count_beyond(missing, radius) {
                    i = node.end as usize;
                    continue;
                }
            }
            // The parent's column: the one just computed when this node is its
            // first child (held in registers), else as stored.
            let (pv, mv, last) = if depth == held.0 + 1 { held.1 } else { self.columns[depth - 1] };
            let eq = match self.ascii.get(node.ch as usize) {
                Some(rows) => *rows,
                None => self.other.iter().find(|(o, _)| *o == node.ch).map_or(B::default(), |(_, rows)| *rows),
            };
            // One step of the recurrence: horizontal differences from the
            // vertical ones, the last row's distance, then the new vertical ones
            // (the top row grows by one a character: whole strings, not search).
            let xv = eq | mv;
            let xh = ((eq & pv).plus(pv) ^ pv) | eq;
            let (ph, mh) = (mv | !(xh | pv), pv & xh);
            let distance = last + ph.bit(m - 1) - mh.bit(m - 1);
            let (ph, mh) = (ph.up(true), mh.up(false));
            let (pv, mv) = (mh | !(xv | ph), ph & xv);
            self.columns[depth] = (pv, mv, distance);
            held = (depth, (pv, mv, distance));
            // The least distance a name below can have: from row r, the rest of the
            // given name (m - r characters) meets the rest of a name (between
            // fewest and most characters), which costs at least the difference in
            // length. Above the rows where that difference is 0 the sum can only
            // fall from row to row, below them only rise: only those rows count.
            let (fewest, most) = (shortest - depth, longest - depth);
            let (top, bottom) = (m.saturating_sub(most), m.saturating_sub(fewest));
            let at_top = if top == 0 { depth } else { depth + (pv & B::low(top)).ones() - (mv & B::low(top)).ones() };
            let in_reach = if top == bottom {
                at_top + (m - top).saturating_sub(most) + fewest.saturating_sub(m - top) <= radius
            } else {
                // Every row between costs nothing more (they differ in length by
                // nothing): is one of them within the radius? A row's distance is
                // at most one less than the row above's, so once it is further
                // out than the rows left, none is.
                let (mut row, mut at) = (top, at_top);
                loop {
                    if at <= radius {
                        break true;
                    }
                    if row == bottom || at > radius + (bottom - row) {
                        break false;
                    }
                    at = at + pv.bit(row) - mv.bit(row);
                    row += 1;
                }
            };
            if !in_reach {
                i = node.end as usize;
                continue;
            }
            self.hit(trie, i, distance, &mut radius);
            i += 1;
        }
        for &c in &self.given {
            if let Some(rows) = self.ascii.get_mut(c as usize) {
                *rows = B::default();
            }
        }
        &mut self.found
    }

    /// Whether the given name has more than `radius` characters of the classes
    /// in `missing` (counting at most [`COUNTS`] of one class: never more than it has).
    #[inline(always)]
    fn count_beyond(&self, missing: u64, radius: usize) -> bool {
        let count: usize = self.counts[..self.depth_of_counts].iter().map(|&at_least| (missing & at_least).ones()).sum();
        count > radius
    }

    /// Records the names of `node` if they are within the radius.
    #[inline]
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
    closest_lowered(&lowercase(given, Vec::new()), budget, names, n)
}

/// [`closest`] for a given name already lowercased, within `budget`.
fn closest_lowered<'a>(given: &[char], budget: usize, names: impl Iterator<Item = &'a str>, n: usize) -> Vec<&'a str> {
    let (mut name_buf, mut rows) = (Vec::new(), Vec::new());
    let mut scored: Vec<(usize, &str)> = Vec::new();
    for name in names {
        name_buf = lowercase(name, name_buf);
        if name_buf.len().abs_diff(given.len()) > budget {
            continue;
        }
        if let Some(d) = bounded_distance(given, &name_buf, budget, &mut rows) {
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
        buf.reserve(s.len());
        for c in s.chars() {
            if c.is_ascii() {
                buf.push(c.to_ascii_lowercase());
            } else {
                buf.extend(c.to_lowercase());
            }
        }
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

    /// A small alphabet (so that many names are in reach), with case changes,
    /// non-ASCII letters and a final sigma.
    const SMALL: &str = "abcdeE_tΣσé";

    /// A deterministic word generator over `alphabet`.
    fn words(seed: u64, alphabet: &str) -> impl FnMut(usize) -> String {
        let mut seed = seed;
        let alphabet: Vec<char> = alphabet.chars().collect();
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
        let mut word = words(0x2545_f491_4f6c_dd1d, SMALL);
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
    fn long_names_are_searched_alike() {
        // Given names on both sides of the walks' widths (64 and 128 characters)
        // and past them, among names long enough to be in reach.
        let mut word = words(0x9e37_79b9_7f4a_7c15, SMALL);
        let mut names: Vec<String> = (0..120).map(|i| word(50 + i % 100)).collect();
        let stem = word(70);
        names.extend((0..6).map(|i| format!("{}{}", &stem, "x".repeat(i * 3))));
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let index = NameIndex::new(names.iter().map(|n| n.as_str().into()).collect());
        for i in 0..200 {
            let given = match i % 4 {
                0 => word(55 + i % 100),
                1 => format!("{}é", refs[i % refs.len()].chars().skip(1).collect::<String>()),
                2 => refs[120 + i % 6].to_uppercase(),
                _ => format!("{stem}{}", "y".repeat(i % 70)),
            };
            let want = closest_by_full_scan(&given, &refs, 3);
            assert_eq!(index.closest(&given, 3), want, "index: {given}");
        }
    }

    #[test]
    fn character_classes_prune_no_name_in_reach() {
        // Every class of its own (letters, digits, `_`, `-`, `.`) and characters
        // that share one (non-ASCII, other ASCII), in names that lack many of
        // them, so that the class test decides often.
        let mut word = words(0xd1b5_4a32_d192_ed03, "abcdefghijklmnopqrstuvwxyz0123456789_-.éñжя中$ !");
        let mut names: Vec<String> = (0..300).map(|i| word(2 + i % 20)).collect();
        names.extend(["get_file", "get-file", "get.file", "getfile2", "жя_file", "中_file"].map(String::from));
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let index = NameIndex::new(names.iter().map(|n| n.as_str().into()).collect());
        for i in 0..600 {
            let given = match i % 3 {
                0 => word(1 + i % 24),
                1 => refs[i % refs.len()].chars().rev().collect(),
                _ => format!("{}{}", &refs[300 + i % 6][..3], word(i % 6)),
            };
            assert_eq!(index.closest(&given, 3), closest_by_full_scan(&given, &refs, 3), "index: {given}");
            assert_eq!(index.closest(&given, 20), closest_by_full_scan(&given, &refs, 20), "index, 20: {given}");
        }
    }

    #[test]
    fn a_static_list_has_one_index() {
        static NAMES: &[&str] = &["get_balance", "list_accounts", "transfer_funds"];
        assert!(std::ptr::eq(NameIndex::of_static(NAMES), NameIndex::of_static(NAMES)));
        assert_eq!(Names::Static(NAMES).closest("TRANSFER_FUND", 3), ["transfer_funds"]);
        assert!(Names::Static(NAMES).closest("transfer_funds", 0).is_empty(), "none asked, none given");
        assert!(Names::Static(NAMES).closest("wipe_disk", 3).is_empty());
        let empty: &'static [&'static str] = &[];
        assert!(Names::Static(empty).closest("anything", 3).is_empty());
        // A given name far longer than any name neither sizes the search nor matches.
        assert!(Names::Static(NAMES).closest(&"a".repeat(100_000), 3).is_empty());
    }

    #[test]
    fn every_kind_of_list_suggests_the_same_names() {
        static NAMES: &[&str] = &["get_balance", "list_accounts", "transfer_funds", "transfer_fonds", "Transfer_Funds"];
        static COMPILED: NameIndex = NameIndex::compiled(NAMES);
        let shared: Arc<[Box<str>]> = NAMES.iter().map(|&name| name.into()).collect();
        let kinds = [Names::Static(NAMES), Names::Shared(shared.clone()), Names::Indexed(Arc::new(NameIndex::new(shared))), Names::Compiled(&COMPILED)];
        for given in ["transfer_fund", "TRANSFER", "get_balanse", "wipe_disk", ""] {
            let expected = closest(given, NAMES.iter().copied(), 3);
            for names in &kinds {
                assert_eq!(names.closest(given, 3), expected, "{names:?}: {given}");
                let owned: Vec<Cow<'static, str>> = names.to_static(Some((given, 3)));
                assert_eq!(owned, expected, "{names:?}, outliving: {given}");
                // Compiled names are borrowed, never copied.
                let compiled = matches!(names, Names::Static(_) | Names::Compiled(_));
                assert!(owned.iter().all(|name| matches!(name, Cow::Borrowed(_)) == compiled), "{names:?}: {given}");
            }
        }
        for names in &kinds {
            assert_eq!(names.iter().collect::<Vec<_>>(), NAMES);
            assert_eq!(names.to_static(None), NAMES);
        }
    }
}
