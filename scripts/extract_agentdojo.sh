#!/usr/bin/env bash
# Rebuilds data/agentdojo/ (or checks it with --check) from the sequrity-ai/agentdojo fork at the
# pinned commit and the agentdojo package 0.1.35 from PyPI, installed into a throwaway venv.
#   bash scripts/extract_agentdojo.sh GIT_DIR [--check]
# GIT_DIR: any git directory (bare or not) that holds commit 7ee80b495601259176d0af7585cae17501fcc9a6.
set -euo pipefail
git_dir=${1:?usage: extract_agentdojo.sh GIT_DIR [--check]}
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${AGENTDOJO_VENV:-/tmp/toolseal-agentdojo-venv}
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet agentdojo==0.1.35
"$venv/bin/python" "$root/scripts/extract_agentdojo.py" "$git_dir" "$root/data/agentdojo" ${2:+"$2"}
