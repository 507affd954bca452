#!/bin/bash
# Runs on the GPU machine, from the repository root, after
# tools/bundle-gpu-tests.sh filled gpu-bundle/. Every step runs even if an
# earlier one fails; logs and artefacts go to $OUT (or ./gpu-out).
#   tools/gpu-check.sh [steps...]
#   steps: info vecadd tests labs memory tune matmul bf16 sweep large bench sanitize sanitize-bf16 sanitize-small-m sanitize-split-b ptxas profile
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
B=gpu-bundle
export PATH=$PATH:/usr/local/cuda/bin
steps=${*:-info vecadd tests tune sanitize ptxas}
step() { echo; echo "=== $* ($(date +%T))"; }
# The BF16 rungs under compute-sanitizer --tool $1: all of them at an odd
# shape, and the clustered ones with several tiles per cluster.
sanitize_bf16() {
    local tool=$1
    # cuBLAS's own split-K reduction (the baseline each table runs) reads
    # parts of its workspace its GEMM never wrote: initcheck leaves it out.
    local skip=()
    [ "$tool" = initcheck ] && skip=(--kernel-name-exclude kns=splitKreduce)
    step "compute-sanitizer --tool $tool, the BF16 rungs at 255x264x136 and 1040x4104x136"
    compute-sanitizer --tool $tool "${skip[@]}" --error-exitcode 9 $B/ptx-ladder matmul --dtype bf16 --m 255 --n 264 --k 136 --reps 1 --warmup 0 \
        > "$OUT/sanitizer-bf16-$tool.txt" 2>&1
    echo "exit code $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Error|Hazard" "$OUT/sanitizer-bf16-$tool.txt" | head -5
    # The clustered rungs with several tiles per cluster and only 3 k-tiles each.
    compute-sanitizer --tool $tool "${skip[@]}" --error-exitcode 9 $B/ptx-ladder matmul --dtype bf16 --m 1040 --n 4104 --k 136 --rungs 6,7,14,16 --reps 1 --warmup 0 \
        > "$OUT/sanitizer-bf16-tiles-$tool.txt" 2>&1
    echo "exit code $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Error|Hazard" "$OUT/sanitizer-bf16-tiles-$tool.txt" | head -5
    # The split-K rungs (9-13, 15, 17) with K in 8 slices (the last of 2 k-tiles), a tile-row
    # whose second warpgroup has no rows, and a partial last column tile.
    compute-sanitizer --tool $tool "${skip[@]}" --error-exitcode 9 $B/ptx-ladder matmul --dtype bf16 --m 150 --n 520 --k 4104 --rungs 9-13,15,17 --reps 1 --warmup 0 \
        > "$OUT/sanitizer-bf16-split-$tool.txt" 2>&1
    echo "exit code $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Error|Hazard" "$OUT/sanitizer-bf16-split-$tool.txt" | head -5
    # Rungs 13's and 17's tile shapes (each rung picks one per shape) at
    # odd shapes, through the GPU test that runs each (no cuBLAS in it).
    compute-sanitizer --tool $tool "${skip[@]}" --error-exitcode 9 $B/gpu_bf16-* --include-ignored every_fitted_and_paired_tile_shape \
        > "$OUT/sanitizer-bf16-fitted-$tool.txt" 2>&1
    echo "exit code $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Error|Hazard|test result" "$OUT/sanitizer-bf16-fitted-$tool.txt" | head -5
}
for s in $steps; do case $s in
sanitize-bf16)
    for tool in memcheck racecheck synccheck initcheck; do sanitize_bf16 $tool; done ;;
sanitize-small-m)
    # The small-M kernels (SGEMM rung 13, BF16 rungs 8 and 18) and their sum:
    # several groups of rows, a block's slice of A in shared memory, k-lanes
    # (N = 64), K not a multiple of 8, narrowed blocks whose last block adds
    # the slices (M = 1); rung 18 one value at a time, with a last partial
    # step of K, and in 128-column blocks; all four tools, filtered to these kernels (the sum reads what
    # the products write, so both are instrumented). racecheck runs
    # unfiltered: with a filter it fails on cuBLAS's TMA kernels (bf16 at
    # M = 1), and unfiltered it reports hazards inside cuBLAS's own
    # nvjet_..._splitK kernels, so the step counts the hazards in ours.
    for tool in memcheck racecheck synccheck initcheck; do
        for shape in "f32 33 1000 1031 13" "f32 20 64 4100 13" "bf16 9 1000 1031 8" "f32 1 4097 4096 13" "bf16 1 4104 4096 8" \
            "bf16 9 1000 1031 18" "bf16 16 1032 4104 18" "bf16 3 36872 256 18"; do
            set -- $shape
            filter="--kernel-name regex=small_m|sum_slices"
            [ $tool = racecheck ] && filter=""
            log="$OUT/sanitizer-small-m-$tool-$1-$2-r$5.txt"
            step "compute-sanitizer --tool $tool, $1 rung $5 at $2x$3x$4"
            compute-sanitizer --tool $tool $filter --error-exitcode 9 \
                $B/ptx-ladder matmul --dtype $1 --m $2 --n $3 --k $4 --rungs $5 --no-cpu --reps 1 --warmup 0 > "$log" 2>&1
            echo "exit code $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|WRONG" "$log" | head -3
            [ $tool = racecheck ] && echo "hazards in the small-M kernels: $(grep -cE "Race reported.*(small_m|sum_slices)" "$log")"
        done
    done ;;
sanitize-split-b)
    # SGEMM rung 15 (B split in shared memory): a partial tile of rows and
    # of columns, K not a multiple of 32, one slice and several. racecheck
    # runs unfiltered (with a kernel filter it fails on TMA kernels); the
    # others are filtered to the 3xTF32 kernels and the sum, every writer of
    # what they read.
    for tool in memcheck racecheck synccheck initcheck; do
        for shape in "255 260 136" "33 1000 4100"; do
            set -- $shape
            filter="--kernel-name regex=tf32x3|sum_slices"
            [ $tool = racecheck ] && filter=""
            step "compute-sanitizer --tool $tool, f32 rung 15 at $1x$2x$3"
            compute-sanitizer --tool $tool $filter --error-exitcode 9 \
                $B/ptx-ladder matmul --dtype f32 --m $1 --n $2 --k $3 --rungs 15 --no-cpu --reps 1 --warmup 0 \
                > "$OUT/sanitizer-split-b-$tool-$1.txt" 2>&1
            echo "exit code $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|WRONG" "$OUT/sanitizer-split-b-$tool-$1.txt" | head -3
        done
    done ;;
info)
    step "nvidia-smi"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
    step "ptx-ladder info"; $B/ptx-ladder info ;;
vecadd)
    step "ptx-ladder vecadd --n 2^28"; $B/ptx-ladder vecadd --n 2^28
    step "ptx-ladder vecadd --n 1000 --block 96"; $B/ptx-ladder vecadd --n 1000 --block 96 ;;
tests)
    export PTX_LADDER_EXERCISES_PTX=$PWD/$B/exercises.ptx
    for t in $B/gpu_*; do
        step "$t --include-ignored"; "$t" --include-ignored --test-threads 1 2>&1 | grep -vE "^$|^running"
    done ;;
tune)
    step "ptx-ladder matmul --tune (4096)"
    $B/ptx-ladder matmul --tune --tune-file "$OUT/autotune.json" --json "$OUT/matmul.json" --svg "$OUT/matmul.svg" ;;
sweep)
    step "ptx-ladder sweep (bf16, then f32), weights read from DRAM"
    $B/ptx-ladder sweep --dtype bf16 --json "$OUT/sweep-bf16.json" --svg "$OUT/sweep-bf16.svg"
    $B/ptx-ladder sweep --dtype f32 --json "$OUT/sweep-f32.json" --svg "$OUT/sweep-f32.svg"
    $B/ptx-ladder sweep --dtype f32 --suite docs/sweep-f32-rungs.csv --rungs 14,15 --json "$OUT/sweep-f32-rungs.json"
    $B/ptx-ladder sweep --dtype bf16 --suite docs/sweep-deep-k.csv --rungs 9,11,15 --json "$OUT/sweep-bf16-deep-k.json"
    $B/ptx-ladder sweep --dtype bf16 --suite docs/sweep-decode.csv --rungs 8,13,18 --reps 100 --json "$OUT/sweep-bf16-decode.json"
    $B/ptx-ladder sweep --dtype f32 --suite docs/sweep-deep-k.csv --json "$OUT/sweep-f32-deep-k.json" ;;
matmul)
    step "ptx-ladder matmul (4096)"
    $B/ptx-ladder matmul --tune-file "$OUT/autotune.json" --json "$OUT/matmul.json" --svg "$OUT/matmul.svg" ;;
bf16)
    step "ptx-ladder matmul --dtype bf16 (4096)"
    $B/ptx-ladder matmul --dtype bf16 --json "$OUT/matmul-bf16.json" --svg "$OUT/matmul-bf16.svg" ;;
large)
    # 8192^3: the fastest rungs of both ladders (rung 1 alone would take minutes).
    step "ptx-ladder matmul --size 8192 --rungs 10-12"
    $B/ptx-ladder matmul --size 8192 --rungs 10-12 --no-cpu --tune-file "$OUT/autotune.json"
    step "ptx-ladder matmul --dtype bf16 --size 8192"
    $B/ptx-ladder matmul --dtype bf16 --size 8192 ;;
memory)
    step "ptx-ladder memory"; $B/ptx-ladder memory --json "$OUT/memory.json" --svg "$OUT/memory.svg"
    step "ptx-ladder info --svg"; $B/ptx-ladder info --svg "$OUT/gpu.svg" --memory-json "$OUT/memory.json" ;;
bench)
    step "criterion bench (CUDA events), short"
    $B/matmul-* --bench --warm-up-time 0.5 --measurement-time 1 2>&1 | grep -E "time:|thrpt:|^sgemm|skipped" ;;
sanitize)
    for tool in memcheck racecheck synccheck; do
        step "compute-sanitizer --tool $tool, every rung at 255x257x129"
        compute-sanitizer --tool $tool --error-exitcode 9 $B/ptx-ladder matmul --m 255 --n 257 --k 129 --no-cpu --reps 1 --warmup 0 \
            > "$OUT/sanitizer-$tool.txt" 2>&1
        echo "exit code $? (9 means errors were found)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Error|Hazard" "$OUT/sanitizer-$tool.txt" | head -5
        step "compute-sanitizer --tool $tool, the Hopper rungs at 255x264x136 (TMA needs K, N % 8 == 0)"
        compute-sanitizer --tool $tool --error-exitcode 9 $B/ptx-ladder matmul --m 255 --n 264 --k 136 --rungs 12,14,15 --no-cpu --reps 1 --warmup 0 \
            > "$OUT/sanitizer-hopper-$tool.txt" 2>&1
        echo "exit code $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Error|Hazard" "$OUT/sanitizer-hopper-$tool.txt" | head -5
        sanitize_bf16 $tool
        step "compute-sanitizer --tool $tool, the memory lab's kernels (--quick)"
        compute-sanitizer --tool $tool --error-exitcode 9 $B/ptx-ladder memory --quick --max-mib 1 > "$OUT/sanitizer-memory-$tool.txt" 2>&1
        echo "exit code $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer-memory-$tool.txt" | head -3
        step "compute-sanitizer --tool $tool, the labs' reductions at n = 1000"
        compute-sanitizer --tool $tool --error-exitcode 9 $B/ptx-ladder reduce --n 1000 --reps 1 > "$OUT/sanitizer-reduce-$tool.txt" 2>&1
        echo "exit code $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer-reduce-$tool.txt" | head -3
    done ;;
ptxas)
    step "ptxas -arch=sm_90 -v"
    ptxas -arch=sm_90a -v $B/kernels_sm90a.ptx -o "$OUT/kernels.sm_90a.cubin" 2>&1 | grep -E "Compiling entry|registers|spill" | paste - - -
    ptxas -arch=sm_90 -v $B/kernels.ptx -o "$OUT/kernels.sm_90.cubin" 2>&1 \
        | grep -E "Compiling entry|registers|spill" | paste - - - | sed -E "s/ptxas info *: //g" > "$OUT/ptxas.txt"
    cat "$OUT/ptxas.txt" | sed -E "s/Compiling entry function '([a-z0-9_]+)' for 'sm_90'.*bytes stack frame, ([0-9]+) bytes spill stores.*Used ([0-9]+) registers.*/\1 spills=\2 regs=\3/"
    cuobjdump -sass "$OUT/kernels.sm_90.cubin" > "$OUT/kernels.sm_90.sass" 2>&1; ls -la "$OUT" ;;
profile)
    # Nsight Compute on the kernels named in $PROFILE (default: a few rungs),
    # one short run each at 2048^3; the clocks are left as they are.
    for k in ${PROFILE:-sgemm_coalesced sgemm_blocktile_2d sgemm_warptiling sgemm_async_pipeline sgemm_tensor_cores}; do
        step "ncu $k"
        ncu --clock-control none -k "regex:^$k\$" -c 1 --section SpeedOfLight --section WarpStateStats \
            --section SchedulerStats --section Occupancy --section ComputeWorkloadAnalysis \
            --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_tensor.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum \
            $B/ptx-ladder matmul --size 2048 --rungs "$k" --reps 1 --warmup 0 > "$OUT/ncu-$k.txt" 2>&1
        grep -E "Duration|hmma|Compute \(SM\) Throughput|Memory Throughput|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Achieved Occupancy|l1tex__|smsp__inst|Stall|stalled|est\. speedup" "$OUT/ncu-$k.txt" | cut -c1-220 | head -40
    done ;;
labs)
    step "ptx-ladder warps --block 30,2"; $B/ptx-ladder warps --block 30,2 --svg "$OUT/warps.svg"
    step "ptx-ladder coalesce"; $B/ptx-ladder coalesce --svg "$OUT/coalesce.svg"
    step "ptx-ladder banks"; $B/ptx-ladder banks --svg "$OUT/banks.svg"
    step "ptx-ladder divergence"; $B/ptx-ladder divergence --svg "$OUT/divergence.svg"
    step "ptx-ladder reduce"; $B/ptx-ladder reduce --svg "$OUT/reduce.svg"
    step "ptx-ladder occupancy --live"; $B/ptx-ladder occupancy --live --svg "$OUT/occupancy.svg" ;;
*) echo "unknown step $s" ;;
esac; done
