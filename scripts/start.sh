#!/usr/bin/env bash
# `npm start`: builds the engine and the `schedlab` CLI and runs the default scenario.
# The web app (React + wasm in a worker) arrives with the web-app issue; until then this
# prints the default scenario's summary and its "why this pick" explanation.
source "$(dirname "$0")/lib.sh"
ensure_rust
say "building schedlab (release)"
cargo build --quiet --release -p schedlab-cli
DEFAULT=scenarios/linux-6.18/sleeper-vs-hog.toml
say "schedlab simulate $DEFAULT"
./target/release/schedlab simulate "$DEFAULT"
say "schedlab explain $DEFAULT --at 100ms"
./target/release/schedlab explain "$DEFAULT" --at 100ms
echo
echo "The browser app is not built yet (web-app issue). Try: ./target/release/schedlab --help"
