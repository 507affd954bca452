#!/bin/sh
# Builds the host binary and every test binary (release), and copies the test
# executables and the PTX into gpu-bundle/ so they can travel to a GPU machine
# that has no Rust toolchain. Run tools/gpu-check.sh there.
set -eu
cd "$(dirname "$0")/.."
cargo build --release --workspace
rm -rf gpu-bundle && mkdir -p gpu-bundle
# The GPU tests (tests/gpu_*.rs, exercises/tests/gpu_*.rs) and the criterion bench; CPU-only tests
# run in CI and need not travel.
cargo test --release --workspace --all-targets --no-run --message-format=json 2>/dev/null \
    | grep '"executable":"' \
    | sed 's/.*"executable":"\([^"]*\)".*/\1/' \
    | grep -E '/(gpu_[a-z0-9]+|matmul)-[0-9a-f]+$' \
    | while read -r exe; do cp "$exe" gpu-bundle/; done
out=$(dirname "$(ls -t target/release/build/ptx-ladder-*/out/kernels.ptx | head -n 1)")
cp "$out/kernels.ptx" "$out/kernels_sm90a.ptx" gpu-bundle/
cp target/release/ptx-ladder gpu-bundle/ptx-ladder
# The exercises' PTX (not in the project's modules; gpu-check.sh points
# PTX_LADDER_EXERCISES_PTX at it).
target/release/ptx-ladder exercise --ptx gpu-bundle/exercises.ptx
ls gpu-bundle
