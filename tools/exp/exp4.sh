#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin
B=gpu-bundle; mkdir -p $OUT/l
for s in "2056 4104 520" "255 264 136" "1 8 8" "17 40 72" "1000 1000 1000" "4097 1024 512"; do set -- $s
timeout 60 $B/ptx-ladder matmul --dtype bf16 --m $1 --n $2 --k $3 --rungs o6,o7 --no-cpu --reps 3 > $OUT/l/c_$1.txt 2>&1; done
timeout 120 $B/ptx-ladder matmul --dtype bf16 --size 4096 --rungs 6,x_g8,o6,o7 --no-cpu > $OUT/l/t4096.txt 2>&1
timeout 150 $B/ptx-ladder matmul --dtype bf16 --size 8192 --rungs 6,x_g8,o6,o7 --no-cpu > $OUT/l/t8192.txt 2>&1
timeout 120 $B/ptx-ladder matmul --dtype bf16 --size 4096 --rungs 6,x_g8,o6,o7 --no-cpu > $OUT/l/t4096b.txt 2>&1
timeout 150 ncu --clock-control none --section SourceCounters --section WarpStateStats --section SpeedOfLight --section ComputeWorkloadAnalysis -k regex:"^(o7)" -c 2 --export $OUT/l/src $B/ptx-ladder matmul --dtype bf16 --size 4096 --rungs o7 --reps 1 --warmup 0 --no-cpu > $OUT/l/ncu.txt 2>&1
timeout 60 ncu -i $OUT/l/src.ncu-rep --page source --csv --print-source sass > $OUT/l/src.csv 2> $OUT/l/src.err
timeout 60 ncu -i $OUT/l/src.ncu-rep --page details > $OUT/l/details.txt 2>&1
for f in $OUT/l/c_* $OUT/l/t*.txt; do grep -E "^(-|[0-9xo])|WRONG|error" $f; done
grep -E "^  [a-z0-9_]+ \(|Duration|Tensor is" $OUT/l/details.txt
cd $OUT && tar czf l.tgz l && rm -rf l
