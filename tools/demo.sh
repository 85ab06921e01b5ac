#!/usr/bin/env bash
# make demo: a short walkthrough of the crypto API (library and the engine's RTL), then the main job:
# a simulated sensor node (PicoRV32 RV32IMC + the engine, sw/apps/sensor) sends readings over DTLS 1.2
# to the SQLite collector, with the cycles per handshake phase, the firmware's size and the rows
# stored. Builds are done by `make demo` first. NODE_CONFIG picks the node: sw+hw-rv32imc (default),
# or hw-rv32imc / hw-rv32i, HW mode (sw/apps/sensor_hw: the handshake in the engine's controller):
#     make demo NODE_CONFIG=hw-rv32imc
set -euo pipefail
cd "$(dirname "$0")/.."
SE=build/host/se
PY=.venv/bin/python
CURVE=secp256r1
OUT=build/demo
READINGS=${READINGS:-5}
NODE_CONFIG=${NODE_CONFIG:-sw+hw-rv32imc}

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
# Runs the CLI, echoing the command line, and prints its "field: value" answer indented.
run() {
    printf '$ se %s\n' "$*" | sed -E 's/([0-9a-f]{24})[0-9a-f]{8,}/\1.../g'
    out=$("$SE" "$@") || { echo "$out"; exit 1; }
    sed 's/^/    /' <<<"$out"
}
field() { sed -n "s/^$1: //p" <<<"$out"; }
hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }

step "The crypto API: ECDSA on $CURVE (sw), a tampered reading is rejected"
run ec-keygen --curve "$CURVE"; a_key=$(field key); a_pub=$(field pub)
msg=$(hex 'temp=21.5C node=7')
run ecdsa-sign --curve "$CURVE" --key "$a_key" --msg "$msg"; r=$(field r); s=$(field s)
run ecdsa-verify --curve "$CURVE" --pub "$a_pub" --msg "$msg" --r "$r" --s "$s"
if bad=$("$SE" ecdsa-verify --curve "$CURVE" --pub "$a_pub" --msg "$(hex 'temp=99.9C node=7')" --r "$r" --s "$s" 2>&1); then
    echo "tampered message verified: demo failed"; exit 1
fi
echo "    temp=99.9C with the same signature: $bad"
step "The same AES-128-GCM encryption on the library and on the engine's RTL (--backend rtl)"
key=000102030405060708090a0b0c0d0e0f nonce=000102030405060708090a0b
run aead-encrypt --mode gcm --key "$key" --nonce "$nonce" --pt "$msg"; sw_ct=$(field ct)$(field tag)
run --backend rtl aead-encrypt --mode gcm --key "$key" --nonce "$nonce" --pt "$msg"
[ "$(field ct)$(field tag)" = "$sw_ct" ] && echo "    identical ciphertext and tag" || { echo "    MISMATCH"; exit 1; }

step "Test PKI: se certs --out $OUT --server-name localhost --clients node-1"
mkdir -p "$OUT"
"$SE" certs --out "$OUT" --server-name localhost --clients node-1 | sed 's/^/    /'

step "The sensor node ($NODE_CONFIG) sends $READINGS readings over DTLS (CCM_8, P-256, mutual auth) to se collector"
"$PY" tools/demo_node.py --pki "$OUT" --readings "$READINGS" --config "$NODE_CONFIG"

echo
echo "demo: ok"
