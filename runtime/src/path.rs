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
        let mut steps = Vec::new();
        let mut at = Some(self);
        while let Some(p) = at {
            steps.push(p.step);
            at = p.parent;
        }
        let mut out = String::new();
        for step in steps.iter().rev() {
            match step {
                Step::Root => {}
                Step::Key(k) => {
                    out.push('/');
                    push_escaped(&mut out, k);
                }
                Step::Index(i) => {
                    let _ = write!(out, "/{i}");
                }
            }
        }
        out
    }
}

/// Appends `token` escaped as RFC 6901 says (`~` → `~0`, `/` → `~1`).
pub fn push_escaped(out: &mut String, token: &str) {
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
    }
}
