#!/usr/bin/env bash
# Data-parallel runs through the real CLI: `--nproc 2` writes one log (rank 0's) that records
# the world size and passes `trainbench check`, for NCF and ResNet; two launchers joined by
# --rank/--world-size/--master (and by torchrun's environment variables) act as a 2-machine job;
# a tuning's launch layout (nproc, threads) starts the processes unless --nproc is given;
# a rank that is killed, or stopped, ends the run as aborted within a bounded time with an
# error in run_stop, and earlier results stay intact; bad flag combinations are refused.
set -u
TB=$1; W=$2
. "$(dirname "$0")/lib.sh"
rm -rf "$W"; mkdir -p "$W"
R=$W/results; D=$W/data; L=$R/s/recommendation

free_port() {  # a port nobody listens on (python3 when present, else a random high port)
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $(( 20000 + RANDOM % 12000 ))
}
rank_pid() {  # rank_pid <rank> <stderr file>: the pid the launcher printed for that rank
  sed -n -E "s/.*worker processes \(rank=pid\):.* $1=([0-9]+).*/\1/p; s/.*worker processes \(rank=pid\): $1=([0-9]+).*/\1/p" "$2" | tail -1
}

"$TB" prepare recommendation --data "$D" --set num_users=300 --set num_items=1500 \
  --set max_ratings_per_user=300 >"$W/prep.out" 2>&1
expect_rc 0 $? "prepare"

# 1. --nproc 2: one log, from rank 0, with the world size and the global batch.
"$TB" run recommendation --data "$D" --runs 1 --seed 3 --nproc 2 --threads 1 --max-steps 30 \
  --results "$R" --system s --no-progress >"$W/run.out" 2>"$W/run.err"
expect_rc 1 $? "2-process run (aborted by the step budget)"
[ "$(ls "$L")" = "result_1.txt" ] || fail "expected exactly one log, got: $(ls "$L")"
expect_grep '"key": "trainbench_dist", "value": \{.*"world_size": 2, "global_batch_size": 2048, "per_rank_batch_size": 1024' \
  "$L/result_1.txt" "trainbench_dist event"
expect_grep '"key": "global_batch_size", "value": 2048' "$L/result_1.txt" "global batch size"
expect_grep '"key": "eval_accuracy"' "$L/result_1.txt" "evaluated"
expect_grep 'worker processes \(rank=pid\): 0=[0-9]+, 1=[0-9]+' "$W/run.err" "launcher names the workers"
"$TB" check "$L/result_1.txt" >"$W/check.out" 2>&1
expect_rc 0 $? "check of the 2-process log"
H1=$(sha256sum "$L/result_1.txt")

# 2. lazy_adam (sparse gradients, all-gathered) over 2 processes also runs and checks.
"$TB" run recommendation --data "$D" --runs 1 --seed 4 --nproc 2 --threads 1 --max-steps 10 \
  --set opt_name=lazy_adam --results "$W/lazy" --system s --no-progress >/dev/null 2>"$W/lazy.err"
expect_rc 1 $? "2-process lazy_adam run"
"$TB" check "$W/lazy/s/recommendation/result_1.txt" >"$W/check_lazy.out" 2>&1
expect_rc 0 $? "check of the lazy_adam log"

# 2b. A tuning's launch layout starts the processes itself; the command's --nproc wins over it.
printf 'name: layout\nbenchmarks:\n  recommendation:\n    mini:\n      blas_threads: 1\n      launch: {nproc: 2, threads: 1}\n' \
  >"$W/layout.yaml"
"$TB" run recommendation --data "$D" --runs 1 --seed 4 --max-steps 10 --tuning "$W/layout.yaml" \
  --results "$W/layout" --system s --no-progress >/dev/null 2>"$W/layout.err"
expect_rc 1 $? "run with the tuning's layout (aborted by the step budget)"
LL=$W/layout/s/recommendation/result_1.txt
expect_grep '2 local processes x 1 thread\(s\)' "$W/layout.err" "the launcher says how it started the run"
expect_grep '"key": "trainbench_dist", "value": \{.*"world_size": 2' "$LL" "2 ranks from the tuning"
expect_grep '"tuning": \{"name": "layout", "path": "[^"]*layout.yaml", "launch": \{"nproc": 2, "threads": 1\}\}' "$LL" \
  "the tuning's layout in the requested configuration"
expect_grep '"key": "trainbench_config_effective".*"threads": 1, .*"world_size": 2' "$LL" "effective threads and ranks"
"$TB" check "$LL" >"$W/check_layout.out" 2>&1
expect_rc 0 $? "check of the tuned 2-process log"
"$TB" run recommendation --data "$D" --runs 1 --seed 4 --max-steps 10 --tuning "$W/layout.yaml" --nproc 1 \
  --results "$W/layout1" --system s --no-progress >/dev/null 2>"$W/layout1.err"
expect_rc 1 $? "run with --nproc 1 over the tuning's layout"
expect_grep '"key": "trainbench_config_effective".*"world_size": 1' "$W/layout1/s/recommendation/result_1.txt" \
  "one rank with --nproc 1"
grep -q '"key": "trainbench_dist"' "$W/layout1/s/recommendation/result_1.txt" && fail "--nproc 1 must win over the tuning's nproc"

# 3. A killed rank: the run ends aborted, promptly, with the error in run_stop.
"$TB" run recommendation --data "$D" --runs 1 --seed 5 --nproc 2 --threads 1 --dist-timeout 60 \
  --results "$R" --system s --no-progress >"$W/kill.out" 2>"$W/kill.err" &
PID=$!
wait_for '"key": "epoch_start"' "$L/result_2.txt.part" 120
P1=$(rank_pid 1 "$W/kill.err")
[ -n "$P1" ] || fail "no pid for rank 1 in: $(cat "$W/kill.err")"
T0=$(date +%s)
kill -9 "$P1"
wait $PID
expect_rc 1 $? "run with a killed rank"
T=$(( $(date +%s) - T0 ))
[ "$T" -lt 30 ] || fail "the survivors took $T s to give up (timeout 60 s: a dead peer must be noticed at once)"
expect_grep '"key": "run_stop".*"status": "aborted".*data-parallel .* failed on rank 0 of 2' "$L/result_2.txt" \
  "run_stop names the failed collective"
expect_grep "rank 1 \(pid $P1\) killed by signal 9" "$W/kill.err" "launcher reports the dead rank"
[ "$(sha256sum "$L/result_1.txt")" = "$H1" ] || fail "result_1.txt changed"

# 4. A hung rank (SIGSTOP): rank 0 times out after --dist-timeout, the launcher kills rank 1.
"$TB" run recommendation --data "$D" --runs 1 --seed 6 --nproc 2 --threads 1 --dist-timeout 4 \
  --results "$R" --system s --no-progress >"$W/hang.out" 2>"$W/hang.err" &
PID=$!
wait_for '"key": "epoch_start"' "$L/result_3.txt.part" 120
P1=$(rank_pid 1 "$W/hang.err")
T0=$(date +%s)
kill -STOP "$P1"
wait $PID
expect_rc 1 $? "run with a hung rank"
T=$(( $(date +%s) - T0 ))
[ "$T" -lt 40 ] || fail "took $T s with a 4 s timeout"
expect_grep '"key": "run_stop".*"status": "aborted".*failed on rank 0 of 2' "$L/result_3.txt" "timeout in run_stop"
expect_grep "rank 1 \(pid $P1\) did not end within .*killing it" "$W/hang.err" "launcher kills the hung rank"
kill -0 "$P1" 2>/dev/null && fail "rank 1 still alive"

# 5. Rank 0 killed: the runner appends the aborted run_stop; rank 1 gives up.
"$TB" run recommendation --data "$D" --runs 1 --seed 7 --nproc 2 --threads 1 --dist-timeout 60 \
  --results "$R" --system s --no-progress >"$W/kill0.out" 2>"$W/kill0.err" &
PID=$!
wait_for '"key": "epoch_start"' "$L/result_4.txt.part" 120
kill -9 "$(rank_pid 0 "$W/kill0.err")"
wait $PID
expect_rc 1 $? "run with rank 0 killed"
expect_grep '"key": "run_stop".*"status": "aborted".*killed by signal 9' "$L/result_4.txt" "appended run_stop"

# 6. Two launchers as a 2-machine job (flags for rank 0, torchrun's variables for rank 1).
PORT=$(free_port)
"$TB" run recommendation --data "$D" --runs 2 --nproc 0 --rank 0 --world-size 2 --master 127.0.0.1:$PORT \
  --threads 1 --max-steps 10 --results "$W/m0" --system s --no-progress >"$W/m0.out" 2>"$W/m0.err" &
P0=$!
RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$PORT "$TB" run recommendation --data "$D" --runs 2 \
  --threads 1 --max-steps 10 --results "$W/m1" --system s --no-progress >"$W/m1.out" 2>"$W/m1.err"
rc1=$?
wait $P0
rc0=$?
expect_rc 1 $rc0 "rank 0 launcher (runs aborted by the step budget)"
expect_rc 1 $rc1 "rank 1 launcher"
[ "$(ls "$W/m0/s/recommendation" | tr '\n' ' ')" = "result_1.txt result_2.txt " ] || fail "rank 0 logs: $(ls "$W/m0/s/recommendation")"
[ ! -e "$W/m1" ] || fail "rank 1 wrote results: $(find "$W/m1")"
expect_grep 'rank 1 of 2 \(torchrun\)' "$W/m1.err" "rank 1 took torchrun's variables"
expect_grep '"rendezvous": "rank 0 of 2 \(flags\), master 127.0.0.1:'"$PORT" "$W/m0/s/recommendation/result_1.txt" "logged rendezvous"
S1=$(grep -o '"key": "seed", "value": [0-9]*' "$W/m0/s/recommendation/result_1.txt")
S2=$(grep -o '"key": "seed", "value": [0-9]*' "$W/m0/s/recommendation/result_2.txt")
[ "$S1" != "$S2" ] || fail "runs 1 and 2 share a seed"
"$TB" check "$W/m0/s/recommendation" >"$W/check_m.out" 2>&1
expect_rc 0 $? "check of the 2-machine logs"

# 7. A member started with another configuration than rank 0's is refused, naming the key.
PORT=$(free_port)
"$TB" run recommendation --data "$D" --runs 1 --rank 0 --world-size 2 --master 127.0.0.1:$PORT --dist-timeout 5 \
  --threads 1 --max-steps 5 --results "$W/x0" --system s --no-progress >/dev/null 2>"$W/x0.err" &
P0=$!
"$TB" run recommendation --data "$D" --runs 1 --rank 1 --world-size 2 --master 127.0.0.1:$PORT --dist-timeout 5 \
  --threads 1 --max-steps 5 --set batch_size=1024 --results "$W/x1" --no-progress >/dev/null 2>"$W/x1.err"
expect_rc 2 $? "mismatched member"
expect_grep 'rank 1 was started with a different job than rank 0: config.batch_size \(rank 0: 2048, here: 1024\)' \
  "$W/x1.err" "names the differing key"
wait $P0
expect_rc 1 $? "rank 0 alone"
expect_grep '"status": "aborted".*could not connect' "$W/x0/s/recommendation/result_1.txt" "rank 0 aborted"

# 8. Flags that contradict each other.
"$TB" run recommendation --data "$D" --nproc 2 --rank 0 >/dev/null 2>"$W/bad1.err"
expect_rc 2 $? "--nproc with --rank"
expect_grep 'cannot be combined with --rank' "$W/bad1.err" "says why"
"$TB" run recommendation --data "$D" --world-size 2 --rank 1 >/dev/null 2>"$W/bad2.err"
expect_rc 2 $? "member without a master"
expect_grep 'needs the rendezvous address: --master ADDR:PORT' "$W/bad2.err" "says why"
# A batch that does not split over the ranks is refused by the launcher, before any fork.
"$TB" run recommendation --data "$D" --nproc 3 --oversubscribe --max-steps 1 --results "$W/bad3" >/dev/null 2>"$W/bad3.err"
expect_rc 2 $? "batch not divisible by 3 ranks"
expect_grep 'batch_size.*not a multiple of the world size 3' "$W/bad3.err" "names the key"
[ ! -e "$W/bad3" ] || fail "a refused job created its results folder"

# 9. ResNet (mini) over 2 processes: a short run whose log checks.
"$TB" run image_classification --runs 1 --seed 1 --nproc 2 --threads 1 --max-steps 4 \
  --results "$W/ic" --system s --no-progress >/dev/null 2>"$W/ic.err"
expect_rc 1 $? "2-process image classification"
expect_grep '"key": "model_bn_span", "value": 64' "$W/ic/s/image_classification/result_1.txt" "per-rank BN span"
"$TB" check "$W/ic/s/image_classification/result_1.txt" >"$W/check_ic.out" 2>&1
expect_rc 0 $? "check of the 2-process ResNet log"
echo "dist CLI test: OK"
