export PATH=$PATH:/usr/local/cuda/bin; B=gpu-bundle
timeout 230 tools/gpu-check.sh sanitize-bf16 > $OUT/b-san.txt 2>&1
timeout 150 $B/ptx-ladder matmul --dtype all --tune --tune-file $OUT/autotune.json --json $OUT/matmul.json --svg $OUT/matmul.svg > $OUT/b-main.txt 2>&1
timeout 60 $B/ptx-ladder matmul --dtype bf16 --size 8192 --no-cpu > $OUT/b-8192.txt 2>&1
timeout 50 $B/ptx-ladder matmul --size 8192 --rungs 10-12 --no-cpu --tune-file $OUT/autotune.json > $OUT/b-8192f.txt 2>&1
timeout 60 ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --metrics dram__bytes_read.sum,dram__bytes_write.sum -k regex:"bf16_wgmma_deferred|nvjet" -c 2 $B/ptx-ladder matmul --dtype bf16 --size 4096 --rungs 7 --reps 1 --warmup 0 --no-cpu > $OUT/b-ncu.txt 2>&1
cat $OUT/b-san.txt | grep -E "===|exit code|SUMMARY"
grep -E "^(-|[0-9]+[ab]? )|best|WRONG|error" $OUT/b-main.txt $OUT/b-8192.txt $OUT/b-8192f.txt | cut -c1-150
grep -E "^  [a-z0-9_]+ |Duration|dram__bytes|Tensor is|L2 Cache Thr|DRAM Thr" $OUT/b-ncu.txt
