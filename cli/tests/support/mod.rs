//! Shared by the command's tests: the repository root, where the test servers,
//! registries and manifests live (the commands run there).

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The repository root.
pub(crate) fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Starts `toolseal gateway --http 127.0.0.1:0 --manifest MANIFEST EXTRA...` with `token` as
/// its bearer token (none when empty); the child and the URL it printed.
pub(crate) fn http_gateway(manifest: &Path, token: &str, extra: &[&str]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolseal"))
        .args(["gateway", "--http", "127.0.0.1:0", "--manifest"])
        .arg(manifest)
        .args(extra)
        .env("TOOLSEAL_GATEWAY_TOKEN", token)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the gateway starts");
    let mut stderr = std::io::BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    let url = loop {
        line.clear();
        assert!(stderr.read_line(&mut line).expect("stderr") > 0, "the gateway exited before serving");
        if let Some(at) = line.find("http://") {
            break line[at..].trim().to_owned();
        }
    };
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    (child, url)
}
