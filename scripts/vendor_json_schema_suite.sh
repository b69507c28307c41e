#!/usr/bin/env bash
# Recreates tests/suite/ byte for byte from a pinned commit of
# json-schema-org/JSON-Schema-Test-Suite.
#
#   scripts/vendor_json_schema_suite.sh [GIT_DIR] [COMMIT]
#
# GIT_DIR: a git directory (bare or not) of the suite; default below.
# COMMIT:  the commit to vendor; default the pinned one below.
#
# Vendored: LICENSE, README.md, remotes/ (whole), and for draft2020-12 and
# draft7 every top-level file of tests/<draft>/, every file directly in
# tests/<draft>/optional/, and tests/<draft>/optional/format/<F>.json for the
# formats toolseal enforces. Blobs are written with `git cat-file blob`, so the
# bytes are the repository's (no attributes, no end-of-line conversion).
set -euo pipefail

PINNED_COMMIT=44401e0c046704b476ec9d2e2fccdaee618f259d
DEFAULT_DIR=/work/.mirror/json-schema-org+JSON-Schema-Test-Suite/repo
REPOSITORY=https://github.com/json-schema-org/JSON-Schema-Test-Suite

dir=${1:-$DEFAULT_DIR}
commit=${2:-$PINNED_COMMIT}
drafts=(draft2020-12 draft7)
formats=(date-time date time email uri uri-reference uuid ipv4 ipv6 hostname)

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=$root/tests/suite

git() { command git -C "$dir" "$@"; }
commit=$(git rev-parse --verify "$commit^{commit}")

# The selected paths, one per line, as the commit's tree lists them.
select_paths() {
    git ls-tree -r --name-only "$commit" -- LICENSE README.md remotes | cat
    for d in "${drafts[@]}"; do
        # top level of tests/<draft>/ and of tests/<draft>/optional/: blobs only
        git ls-tree --name-only "$commit" -- "tests/$d/" | while read -r p; do
            if [ "$(git cat-file -t "$commit:$p")" = blob ]; then echo "$p"; fi
        done
        git ls-tree --name-only "$commit" -- "tests/$d/optional/" | while read -r p; do
            if [ "$(git cat-file -t "$commit:$p")" = blob ]; then echo "$p"; fi
        done
        for f in "${formats[@]}"; do
            # a format the draft's suite does not test (draft7 has no uuid.json) is skipped
            p=tests/$d/optional/format/$f.json
            if git cat-file -e "$commit:$p" 2>/dev/null; then echo "$p"; else echo "$p" >>"$tmp/.absent"; fi
        done
    done
}

tmp=$(mktemp -d "$root/tests/.suite.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
select_paths >"$tmp/.paths"
n=0
while read -r p; do
    mkdir -p "$tmp/$(dirname "$p")"
    git cat-file blob "$commit:$p" >"$tmp/$p"
    n=$((n + 1))
done <"$tmp/.paths"
absent=$(cat "$tmp/.absent" 2>/dev/null || true)
rm -f "$tmp/.paths" "$tmp/.absent"

cat >"$tmp/PROVENANCE" <<EOF
JSON-Schema-Test-Suite, vendored unmodified (a subset of its files).

repository: $REPOSITORY
commit:     $commit
license:    MIT (see LICENSE)
files:      $n, each the blob at that commit, byte for byte
selection:  LICENSE, README.md, remotes/ (whole); for tests/draft2020-12 and
            tests/draft7: every top-level file, every file directly in optional/,
            and optional/format/{$(IFS=,; echo "${formats[*]}")}.json
absent:     ${absent:-none} (not in the commit's tree)
command:    scripts/vendor_json_schema_suite.sh <git dir of the suite> $commit
EOF

rm -rf "$dest"
mv "$tmp" "$dest"
trap - EXIT
echo "tests/suite: $n files from $commit" >&2
