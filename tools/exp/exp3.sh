#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin
B=gpu-bundle; mkdir -p $OUT/l
timeout 60 $B/ptx-ladder matmul --dtype bf16 --m 2056 --n 4104 --k 520 --rungs o6 --no-cpu --reps 5 > $OUT/l/odd.txt 2>&1
timeout 60 $B/ptx-ladder matmul --dtype bf16 --m 255 --n 264 --k 136 --rungs o6 --no-cpu --reps 5 > $OUT/l/small.txt 2>&1
timeout 60 $B/ptx-ladder matmul --dtype bf16 --m 1 --n 8 --k 8 --rungs o6 --no-cpu --reps 5 > $OUT/l/tiny.txt 2>&1
timeout 120 $B/ptx-ladder matmul --dtype bf16 --size 4096 --rungs 6,x_g8,o1,o6 --no-cpu > $OUT/l/t4096.txt 2>&1
timeout 150 $B/ptx-ladder matmul --dtype bf16 --size 8192 --rungs 6,x_g8,o1,o6 --no-cpu > $OUT/l/t8192.txt 2>&1
timeout 120 $B/ptx-ladder matmul --dtype bf16 --size 4096 --rungs 6,x_g8,o1,o6 --no-cpu > $OUT/l/t4096b.txt 2>&1
timeout 150 ncu --clock-control none --section SourceCounters --section WarpStateStats --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis -k regex:"^(o6|x_g8|bf16_wgmma_cluster)" -c 6 --export $OUT/l/src $B/ptx-ladder matmul --dtype bf16 --size 4096 --rungs 6,x_g8,o6 --reps 1 --warmup 0 --no-cpu > $OUT/l/ncu.txt 2>&1
timeout 60 ncu -i $OUT/l/src.ncu-rep --page source --csv --print-source sass > $OUT/l/src.csv 2> $OUT/l/src.err
timeout 60 ncu -i $OUT/l/src.ncu-rep --page details > $OUT/l/details.txt 2>&1
for f in odd small tiny t4096 t8192 t4096b; do grep -E "^(-|[0-9xo])|WRONG|error" $OUT/l/$f.txt; done
grep -E "^  [a-z0-9_]+ \(|Duration|DRAM Through|Tensor|L2 Cache Throughput" $OUT/l/details.txt
cd $OUT && tar czf l.tgz l && rm -rf l
