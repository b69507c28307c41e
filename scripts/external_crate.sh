# Sourced by the scripts that build a crate outside this repository.
# `external_crate DIR NAME TOOLSEAL_OPTIONS [DEPENDENCY LINES]` writes DIR/Cargo.toml
# (its own workspace; toolseal by path with TOOLSEAL_OPTIONS, e.g.
# `, features = ["testing"]`; toolseal-build as the build dependency; the
# extra dependency lines) and the repository's Cargo.lock, and makes DIR/src.
# `repo` must name the repository.
external_crate() {
  local dir=$1 name=$2 options=$3 extra=${4:-}
  mkdir -p "$dir/src"
  cp "$repo/Cargo.lock" "$dir/Cargo.lock"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "$name"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
toolseal = { path = "$repo"$options }
$extra

[build-dependencies]
toolseal-build = { path = "$repo/build-support" }
TOML
}
