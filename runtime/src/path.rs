//! Where a value sits in a call, kept as a stack-allocated chain while
//! resolving and rendered as a JSON pointer (RFC 6901) only on rejection.

use std::fmt::Write;

/// One step of a [`Path`].
#[derive(Debug, Clone, Copy)]
enum Step<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

/// A location in a JSON document; costs nothing until it is rendered.
#[derive(Debug, Clone, Copy)]
pub struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    step: Step<'a>,
}

impl Path<'static> {
    /// The document root (pointer `""`).
    pub const fn root() -> Path<'static> {
        Path { parent: None, step: Step::Root }
    }
}

impl<'a> Path<'a> {
    /// The member `key` of the object here.
    pub fn key<'b>(&'b self, key: &'b str) -> Path<'b> {
        Path { parent: Some(self), step: Step::Key(key) }
    }

    /// The element `index` of the array here.
    pub fn index<'b>(&'b self, index: usize) -> Path<'b> {
        Path { parent: Some(self), step: Step::Index(index) }
    }

    /// The JSON pointer of this location, e.g. `/arguments/items/0/name`.
    pub fn pointer(&self) -> String {
        let mut out = String::with_capacity(self.pointer_len());
        self.write_pointer(&mut out);
        out
    }

    /// About the length of the pointer (exact but for escapes): its capacity.
    fn pointer_len(&self) -> usize {
        let mut len = 0;
        let mut at = Some(self);
        while let Some(p) = at {
            len += match p.step {
                Step::Root => 0,
                Step::Key(k) => 1 + k.len(),
                Step::Index(i) => 2 + i.checked_ilog10().unwrap_or(0) as usize,
            };
            at = p.parent;
        }
        len
    }

    /// Writes the steps from the root (a path is as deep as the JSON, at most 128 levels).
    fn write_pointer(&self, out: &mut String) {
        if let Some(parent) = self.parent {
            parent.write_pointer(out);
        }
        match self.step {
            Step::Root => {}
            Step::Key(k) => {
                out.push('/');
                push_escaped(out, k);
            }
            Step::Index(i) => {
                let _ = write!(out, "/{i}");
            }
        }
    }
}

/// Appends `token` escaped as RFC 6901 says (`~` → `~0`, `/` → `~1`).
pub fn push_escaped(out: &mut String, token: &str) {
    // Every byte looked at (no early exit), so that the check is a vector loop.
    if !token.bytes().fold(false, |found, b| found | (b == b'~') | (b == b'/')) {
        out.push_str(token);
        return;
    }
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_pointer_with_escapes() {
        let root = Path::root();
        let args = root.key("arguments");
        let k = args.key("a/b~c");
        let i = k.index(3);
        assert_eq!(i.pointer(), "/arguments/a~1b~0c/3");
        assert_eq!(root.pointer(), "");
        let (a, b) = (args.index(0), args.index(10));
        let (c, d) = (b.index(12345), a.key(""));
        let deep = c.key("");
        assert_eq!(d.pointer(), "/arguments/0/");
        assert_eq!(deep.pointer(), "/arguments/10/12345/");
        assert_eq!(deep.pointer().len(), deep.pointer_len());
    }
}
