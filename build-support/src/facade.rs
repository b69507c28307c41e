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

    /// `<path>::<name>`: an item at the facade's root, such as the `Args` derive.
    pub(crate) fn root(&self, name: &str) -> TokenStream {
        let path = &self.path;
        let name = format_ident!("{name}");
        quote!(#path::#name)
    }

    /// The path as `#[toolseal(crate = "…")]` takes it, when it is not the default `::toolseal`.
    pub(crate) fn custom(&self) -> Option<String> {
        let path = &self.path;
        let text = quote!(#path).to_string().replace(' ', "");
        (text != "::toolseal").then_some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_written_as_given() {
        let f = Facade::parse("crate::reexported::ts").expect("a path");
        assert_eq!(f.private().to_string().replace(' ', ""), "crate::reexported::ts::__private");
        assert_eq!(f.root("Args").to_string().replace(' ', ""), "crate::reexported::ts::Args");
        assert_eq!(f.custom().as_deref(), Some("crate::reexported::ts"));
        assert_eq!(Facade::default().custom(), None);
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
        // The derive is told the path too: `#[toolseal(crate = "crate::facade", ..)]`.
        let told = via.matches(r#"crate = "crate::facade""#).count();
        assert_eq!(told, default.matches(":: toolseal :: Args").count() + default.matches(":: toolseal :: ToolSet").count(), "every derive is told the path");
        let untold = via.replace(r#"# [toolseal (crate = "crate::facade")] "#, "").replace(r#"crate = "crate::facade" , "#, "");
        assert_eq!(untold.replace("crate :: facade", ":: toolseal").replace("crate::facade", "::toolseal"), default);
    }
}
