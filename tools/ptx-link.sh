#!/bin/sh
# Final link step for the nvptx64 kernels, called by rustc as its "linker".
#
# rustc hands over LLVM bitcode objects (one, after fat LTO), the kernel names
# (--export-symbol) and the GPU architecture (--target-cpu sm_XX). We merge the
# bitcode with llvm-link and lower it to PTX text with llc. Both tools come from
# the `llvm-tools` rustup component; build.rs passes their folder in
# PTX_LADDER_LLVM_BIN and the PTX ISA version in PTX_LADDER_PTX_ATTR.
set -eu

out=""
cpu=""
objects=""
while [ $# -gt 0 ]; do
    case "$1" in
        -o) out="$2"; shift 2 ;;
        --target-cpu) cpu="$2"; shift 2 ;;
        --export-symbol|--target|-L) shift 2 ;;
        *.o) objects="$objects $1"; shift ;;
        *) shift ;;
    esac
done

if [ -z "$out" ] || [ -z "$cpu" ] || [ -z "$objects" ]; then
    echo "ptx-link: expected bitcode objects, --target-cpu and -o from rustc" >&2
    exit 1
fi
bin="${PTX_LADDER_LLVM_BIN:?ptx-link: PTX_LADDER_LLVM_BIN is not set (run through cargo build)}"

# shellcheck disable=SC2086 # the object list is meant to split on spaces
"$bin/llvm-link" $objects -o "$out.bc"
"$bin/llc" -O3 -mcpu="$cpu" ${PTX_LADDER_PTX_ATTR:+-mattr="$PTX_LADDER_PTX_ATTR"} "$out.bc" -o "$out"
rm -f "$out.bc"
