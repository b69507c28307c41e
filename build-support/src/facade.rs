//! How generated code names the toolseal facade crate: `::toolseal`, or the
//! path given to [`Config::toolseal_path`](crate::Config::toolseal_path).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::Error;

/// The path generated code reaches the facade by; every reference to it goes through here.
#[derive(Clone)]
pub(crate) struct Facade {
    path: syn::Path,
}

impl Default for Facade {
    fn default() -> Facade {
        Facade { path: syn::parse_quote!(::toolseal) }
    }
}

impl Facade {
    /// The facade at `path` (`::toolseal`, `::my_sdk::toolseal`, `crate::ts`).
    pub(crate) fn parse(path: &str) -> Result<Facade, Error> {
        let path: syn::Path = syn::parse_str(path).map_err(|e| Error::Config(format!("toolseal_path {path:?} is not a Rust path: {e}")))?;
        if path.segments.iter().any(|s| !s.arguments.is_none()) {
            return Err(Error::Config(format!("toolseal_path {:?} must be a plain path, without generic arguments", quote!(#path).to_string().replace(' ', ""))));
        }
        Ok(Facade { path })
    }

    /// `<path>::__private`: the support module generated code uses.
    pub(crate) fn private(&self) -> TokenStream {
        let path = &self.path;
        quote!(#path::__private)
    }

    /// `<path>::<name>`: an item at the facade's root, such as a `#[macro_export]` macro.
    pub(crate) fn root(&self, name: &str) -> TokenStream {
        let path = &self.path;
        let name = format_ident!("{name}");
        quote!(#path::#name)
    }

    /// The argument of `#[serde(crate = "…")]`: `<path>::__private::serde`.
    pub(crate) fn serde(&self) -> String {
        format!("{}::serde", self.private_text())
    }

    fn private_text(&self) -> String {
        self.private().to_string().replace(' ', "")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_written_as_given() {
        let f = Facade::parse("crate::reexported::ts").expect("a path");
        assert_eq!(f.private().to_string().replace(' ', ""), "crate::reexported::ts::__private");
        assert_eq!(f.root("__newtype_access").to_string().replace(' ', ""), "crate::reexported::ts::__newtype_access");
        assert_eq!(f.serde(), "crate::reexported::ts::__private::serde");
        assert!(Facade::parse("not a path").is_err());
        assert!(Facade::parse("a::b<T>").is_err());
    }

    #[test]
    fn the_path_is_the_only_difference() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/transfer_funds/registry/bank.json");
        let bytes = std::fs::read(&path).expect("the bank registry");
        let tokens = |facade: &Facade| {
            let options = toolseal_runtime::schema::CompileOptions::default();
            crate::registry_tokens(&bytes, &path, "bank", &options, facade).expect("generates").tokens.to_string()
        };
        let (default, via) = (tokens(&Facade::default()), tokens(&Facade::parse("crate::facade").expect("a path")));
        assert!(!via.contains("toolseal ::") && !via.contains("::toolseal"), "{via}");
        assert_eq!(via.replace("crate :: facade", ":: toolseal").replace("crate::facade", "::toolseal"), default);
    }
}
