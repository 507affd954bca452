#!/bin/bash
export PATH=$PATH:/usr/local/cuda/bin
B=gpu-bundle; mkdir -p $OUT/l
X=x_g2,x_g8,x_g16,x_noepi,x_lag1,x_lag2,x_direct
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,power.limit --format=csv > $OUT/l/smi0.txt
timeout 60 $B/ptx-ladder matmul --dtype bf16 --m 2056 --n 4104 --k 520 --rungs 5,6,x_g2,x_g8,x_g16,x_noepi,x_lag1,x_lag2 --no-cpu --reps 5 > $OUT/l/odd.txt 2>&1
timeout 60 $B/ptx-ladder matmul --dtype bf16 --m 2056 --n 4104 --k 520 --rungs 6,x_direct --no-cpu --reps 5 > $OUT/l/odd2.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 100 > $OUT/l/smi.csv &
SMI=$!
timeout 120 $B/ptx-ladder matmul --dtype bf16 --size 4096 --rungs 4,5,6,$X --no-cpu > $OUT/l/t4096.txt 2>&1
timeout 150 $B/ptx-ladder matmul --dtype bf16 --size 8192 --rungs 4,5,6,$X --no-cpu > $OUT/l/t8192.txt 2>&1
kill $SMI
timeout 150 ncu --clock-control none --section SourceCounters --section WarpStateStats --section SpeedOfLight -k regex:"^(bf16_wgmma_cluster|x_lag1|x_noepi)" -c 6 --export $OUT/l/src $B/ptx-ladder matmul --dtype bf16 --size 4096 --rungs 6,x_lag1,x_noepi --reps 1 --warmup 0 --no-cpu > $OUT/l/ncu.txt 2>&1
timeout 60 ncu -i $OUT/l/src.ncu-rep --page source --csv --print-source sass > $OUT/l/src.csv 2> $OUT/l/src.err
timeout 60 ncu -i $OUT/l/src.ncu-rep --page details > $OUT/l/details.txt 2>&1
cat $OUT/l/t4096.txt $OUT/l/t8192.txt | grep -vE "^\s*$" | tail -40; head -c 1500 $OUT/l/src.err; grep -c . $OUT/l/src.csv
cd $OUT && tar czf l.tgz l && rm -rf l
