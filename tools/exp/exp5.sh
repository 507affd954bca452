#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin
B=gpu-bundle; mkdir -p $OUT/l
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 100 > $OUT/l/smi.csv &
SMI=$!
for i in 1 2; do
date +%T.%N > $OUT/l/t4096_$i.txt
timeout 120 $B/ptx-ladder matmul --dtype bf16 --size 4096 --rungs 6,o6,o7 --no-cpu >> $OUT/l/t4096_$i.txt 2>&1
done
timeout 150 $B/ptx-ladder matmul --dtype bf16 --size 8192 --rungs 6,o6,o7 --no-cpu > $OUT/l/t8192.txt 2>&1
kill $SMI
for f in $OUT/l/t*.txt; do grep -E "^(-|[0-9xo])|WRONG|error" $f; done
cd $OUT && tar czf l.tgz l && rm -rf l
