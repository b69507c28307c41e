#!/usr/bin/env bash
# Acceptance check for issue 3: a crate outside this repository generates code
# from its own registry file in build.rs and implements every tool with
# `#[toolseal::toolset]`. It compiles and dispatches a resolved call; after
# one field of the registry is renamed, `cargo build` re-runs the generation
# and fails at the implementation, naming the tool, the field and the file.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$repo/scripts/external_crate.sh"
external_crate "$work" external-tool-implementer ""
mkdir -p "$work/registry"
cp "$repo/examples/transfer_funds/registry/bank.json" "$work/registry/bank.json"
cat > "$work/build.rs" <<'RS'
fn main() -> Result<(), toolseal_build::Error> {
    toolseal_build::Config::new().registry_as("registry/bank.json", "bank").compile()
}
RS
cat > "$work/src/main.rs" <<'RS'
mod bank {
    toolseal::include_registry!("bank");
}

use bank::*;

struct Bank;

#[toolseal::toolset(registry = "bank")]
impl Bank {
    #[tool]
    fn transfer_funds(&self, recipient_id: TransferFundsRecipientId, amount: TransferFundsAmount, currency: TransferFundsCurrency, memo: Option<TransferFundsMemo>) -> String {
        let _ = memo;
        format!("sent {} {} to {}", amount.get(), currency.as_str(), recipient_id.get())
    }
    #[tool]
    fn get_balance(&self, account_id: GetBalanceAccountId) -> f64 {
        let _ = account_id;
        0.0
    }
    #[tool]
    fn list_transactions(&self, args: ListTransactionsArgs) -> Vec<String> {
        let _ = args;
        Vec::new()
    }
    #[tool]
    fn freeze_account(&self, account_id: FreezeAccountAccountId, reason: FreezeAccountReason) {
        let _ = (account_id, reason);
    }
}

fn main() {
    let call = ToolCall::from_json(br#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-7","amount":25}}"#).expect("resolves");
    println!("{}", Bank.dispatch(call).expect("runs"));
}
RS
cd "$work"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target/external}"
out=$(cargo run --quiet)
[ "$out" = '"sent 25 EUR to acct-7"' ] || { echo "drift: the implementation did not run as expected: $out"; exit 1; }
echo "drift: the crate builds and dispatches against registry/bank.json ($out)"
# Rename one field in the registry, as a server upgrade would.
python3 - registry/bank.json <<'PY'
import json, sys
path = sys.argv[1]
reg = json.load(open(path))
schema = reg["tools"][0]["inputSchema"]
schema["properties"] = {("payee_id" if k == "recipient_id" else k): v for k, v in schema["properties"].items()}
schema["required"] = ["payee_id" if k == "recipient_id" else k for k in schema["required"]]
json.dump(reg, open(path, "w"), indent=2)
PY
if cargo build --quiet 2> build.log; then
  echo "drift: FAILED, the build still succeeds after \`recipient_id\` was renamed \`payee_id\`"
  exit 1
fi
for expected in "declares no argument \`recipient_id\`" "\`payee_id: TransferFundsPayeeId\`" "registry/bank.json" "src/main.rs"; do
  grep -qF "$expected" build.log || { echo "drift: FAILED, the build error does not mention $expected:"; cat build.log; exit 1; }
done
echo "drift: after renaming recipient_id -> payee_id the build fails at the implementation:"
grep -E "^error" build.log | sed 's/^/  /'
echo "drift: passed"
