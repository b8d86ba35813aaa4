#!/usr/bin/env bash
# The recommendation benchmark through the real CLI: `prepare` generates the mini dataset (here
# a small one) deterministically and verifies it on a second call; a short run's log carries
# the NCF keys and passes `trainbench check`; the closed NCF rules reject what they must; bad
# ratings files end the run as aborted with an error naming the file and line, and lose
# nothing already written.
set -u
TB=$1; W=$2
. "$(dirname "$0")/lib.sh"
rm -rf "$W"; mkdir -p "$W"
R=$W/results
D=$W/data
SMALL=(--set num_users=300 --set num_items=1500 --set max_ratings_per_user=300)

# 1. prepare: generate, then verify; a changed file is refused.
"$TB" prepare recommendation --data "$D" "${SMALL[@]}" >"$W/prep.out" 2>&1
expect_rc 0 $? "prepare (generate)"
expect_grep "ratings.csv: generated" "$W/prep.out" "generated"
expect_grep "300 users kept" "$W/prep.out" "split summary"
[ -f "$D/dataset.json" ] || fail "no dataset.json"
head -1 "$D/ratings.csv" | grep -qx 'userId,movieId,rating,timestamp' || fail "header"
"$TB" prepare recommendation --data "$D" "${SMALL[@]}" >"$W/prep2.out" 2>&1
expect_rc 0 $? "prepare (verify)"
expect_grep "matches the generator's output" "$W/prep2.out" "verified"
"$TB" prepare recommendation --data "$D" --set num_users=301 --set num_items=1500 \
  --set max_ratings_per_user=300 >"$W/prep3.out" 2>&1
expect_rc 2 $? "prepare with other options over an existing file"
expect_grep "$D/ratings.csv: exists but is not what the generator makes" "$W/prep3.out" "names the file"
"$TB" prepare recommendation --data "$D" --set no_such=1 >"$W/prep4.out" 2>&1
expect_rc 2 $? "unknown generator option"
expect_grep "no_such: unknown generator option" "$W/prep4.out" "names the option"

# 2. A short closed run (step budget: aborted, exit 1) whose log passes trainbench's rules.
"$TB" run recommendation --data "$D" --runs 1 --seed 3 --threads 2 --max-steps 40 \
  --results "$R" --system testsys --no-progress >"$W/run.out" 2>"$W/run.err"
expect_rc 1 $? "short run (aborted by the step budget)"
LOG=$R/testsys/recommendation/result_1.txt
[ -f "$LOG" ] || fail "no log at $LOG"
for k in '"submission_benchmark", "value": "ncf"' '"opt_name", "value": "adam"' \
         '"opt_adam_beta_1", "value": 0.9' '"preproc_hp_min_ratings", "value": 20' \
         '"preproc_hp_num_eval", "value": 999' '"input_hp_num_neg", "value": 4' \
         '"eval_hp_num_users", "value": 300,' '"model_hp_mlp_layer_sizes", "value": \[256, 256, 128, 64\]' \
         '"global_batch_size", "value": 2048' '"train_samples", "value": [0-9]+' \
         '"trainbench_dataset", "value": \{"path": "[^"]*ratings.csv", "content_fnv1a64"'; do
  expect_grep "$k" "$LOG" "log holds $k"
done
expect_grep '"key": "eval_accuracy", "value": 0\.[0-9]+.*"hr_at_k".*"ndcg_at_k"' "$LOG" "HR@10 and NDCG@10"
"$TB" check "$LOG" >"$W/check.out" 2>&1
expect_rc 0 $? "trainbench-1.0 check of the run"
expect_grep 'SUCCESS' "$W/check.out" "verdict"
# MLPerf 4.0.0 has no NCF: its rules reject the benchmark name.
"$TB" check "$LOG" --ruleset 4.0.0 >"$W/check2.out" 2>&1
expect_rc 1 $? "4.0.0 check"
expect_grep 'submission_benchmark' "$W/check2.out" "4.0.0 names submission_benchmark"

# LazyAdam is the other closed optimizer: a short run with it logs lazy_adam and passes.
"$TB" run recommendation --data "$D" --runs 1 --seed 5 --threads 2 --max-steps 10 --set opt_name=lazy_adam \
  --set train_threads=1 --set eval_threads=2 --results "$W/lazy" --system testsys --no-progress >"$W/lazy.out" 2>&1
expect_rc 1 $? "short lazy_adam run (aborted by the step budget)"
LAZY=$W/lazy/testsys/recommendation/result_1.txt
expect_grep '"opt_name", "value": "lazy_adam"' "$LAZY" "lazy_adam logged"
expect_grep '"train_intra_op_threads": 1, "eval_intra_op_threads": 2' "$LAZY" "per-phase threads in the provenance"
expect_grep '"key": "eval_accuracy"' "$LAZY" "lazy_adam run evaluated"
"$TB" check "$LAZY" >"$W/lazy_check.out" 2>&1
expect_rc 0 $? "check of the lazy_adam run"

# --tuning: the shipped optimized settings plus the fused paths and bf16 evaluation; logged, checked.
"$TB" run recommendation --data "$D" --runs 1 --seed 5 --threads 2 --max-steps 10 --tuning optimized \
  --set fused_optimizer=true --set eval_fused_gather=true --set eval_mlp_dtype=bf16 \
  --results "$W/tuned" --system testsys --no-progress >"$W/tuned.out" 2>&1
expect_rc 1 $? "short tuned run (aborted by the step budget)"
TUNED=$W/tuned/testsys/recommendation/result_1.txt
expect_grep '"blas_threads": "1", "eval_batch_pairs": "16384", .*"tuning": \{"name": "optimized", "path": "[^"]*configs/tunings/optimized.yaml"\}' \
  "$TUNED" "tuning and its overrides in the requested configuration"
expect_grep '"fused_optimizer": true, "eval_fused_gather": true, "eval_mlp_dtype": "bf16"' "$TUNED" "fused paths in the provenance"
expect_grep '"key": "eval_accuracy", "value": 0\.[0-9]+' "$TUNED" "tuned run evaluated"
"$TB" check "$TUNED" >"$W/tuned_check.out" 2>&1
expect_rc 0 $? "check of the tuned run"
# A machine-aware tuning: the first entry whose CPU features this machine has; the run says and
# logs which and why. (A feature no CPU has, so the choice is the same on every machine.)
printf 'name: aware\nbenchmarks:\n  recommendation:\n    mini:\n      - {requires: [no_such_cpu_feature], blas_threads: 2}\n      - {blas_threads: 1}\n' >"$W/aware.yaml"
OMP_WAIT_POLICY=ACTIVE "$TB" run recommendation --data "$D" --runs 1 --seed 5 --max-steps 2 --tuning "$W/aware.yaml" \
  --results "$W/aware" --system s --no-progress >"$W/aware.out" 2>"$W/aware.err"
expect_grep "tuning aware for recommendation mini: entry 2 of 2; entry 1 needs no_such_cpu_feature, which this CPU lacks" \
  "$W/aware.err" "the choice on stderr"
expect_grep '"blas_threads": "1", .*"tuning": \{"name": "aware", .*"entry": 2, "requires": \[\], "choice": "entry 2 of 2; entry 1 needs no_such_cpu_feature' \
  "$W/aware/s/recommendation/result_1.txt" "the choice in trainbench_config_requested"
# How OpenMP threads wait is logged, with why (a policy the user set is kept).
expect_grep '"omp_wait_policy": "ACTIVE", "omp_wait_policy_why": "OMP_WAIT_POLICY=ACTIVE, set by the user"' \
  "$W/aware/s/recommendation/result_1.txt" "the user's OpenMP wait policy"
expect_grep '"omp_wait_policy": "(default|PASSIVE)", "omp_wait_policy_why": "[^"]*other processes used [0-9]+% of the CPUs at launch"' \
  "$TUNED" "the launcher's OpenMP wait policy and why"
"$TB" list --tunings >"$W/tunings.out" 2>&1
expect_rc 0 $? "list --tunings"
expect_grep "^optimized  recommendation mini: blas_threads=1, eval_batch_pairs=16384" "$W/tunings.out" "listed"
# A tuning is checked like --set: a key the closed division fixes is refused, naming the file.
printf 'name: bad\nbenchmarks:\n  recommendation:\n    mini: {mf_dim: 8}\n' >"$W/bad_tuning.yaml"
"$TB" run recommendation --data "$D" --runs 1 --tuning "$W/bad_tuning.yaml" --results "$W/bad" --no-progress >"$W/badt.out" 2>&1
expect_rc 2 $? "closed run with a tuning that changes the model"
expect_grep 'mf_dim.*(with tuning .*bad_tuning.yaml)' "$W/badt.out" "names the key and the tuning"
printf 'name: other\nbenchmarks:\n  translation:\n    mini: {blas_threads: 1}\n' >"$W/other_tuning.yaml"
"$TB" run recommendation --data "$D" --runs 1 --tuning "$W/other_tuning.yaml" --results "$W/bad" --no-progress >"$W/badt2.out" 2>&1
expect_rc 2 $? "tuning without settings for the benchmark"
expect_grep 'other_tuning.yaml: tuning "other" has no settings for recommendation mini \(it has: translation mini\)' \
  "$W/badt2.out" "names the file and what it has"
"$TB" run recommendation --data "$D" --runs 1 --set fused_optimizer=true --set opt_name=lazy_adam \
  --results "$W/bad" --no-progress >"$W/badt3.out" 2>&1
expect_rc 2 $? "fused optimizer with lazy_adam"
expect_grep 'fused_optimizer.*needs opt_name adam' "$W/badt3.out" "names the key"
[ ! -e "$W/bad/$(hostname)/recommendation/result_1.txt" ] || fail "a refused run wrote a log"

# 3. The closed NCF rules, on one-defect copies of the log.
variant() {  # variant <name> <sed expression> <rule that must fail>
  sed -E "$2" "$LOG" >"$W/$1.txt"
  "$TB" check "$W/$1.txt" >"$W/$1.out" 2>&1
  expect_rc 1 $? "check of variant $1"
  expect_grep "$3" "$W/$1.out" "variant $1 names $3"
}
variant sgd 's/"opt_name", "value": "adam"/"opt_name", "value": "sgd"/' opt_name
variant epsilon 's/"opt_adam_epsilon", "value": 1e-08/"opt_adam_epsilon", "value": 1e-07/' opt_adam_epsilon
variant negatives 's/"input_hp_num_neg", "value": 4/"input_hp_num_neg", "value": 8/' input_hp_num_neg
variant no_users '/"eval_hp_num_users"/d' eval_hp_num_users
variant factors 's/"model_hp_mf_dim", "value": [0-9]+/"model_hp_mf_dim", "value": 7/' model_hp_mf_dim
variant forged_success 's/"status": "aborted"/"status": "success"/' eval_accuracy
# The open division does not fix the model.
sed -E 's/"submission_division", "value": "closed"/"submission_division", "value": "open"/; s/"model_hp_mf_dim", "value": [0-9]+/"model_hp_mf_dim", "value": 7/' \
  "$LOG" >"$W/open.txt"
"$TB" check "$W/open.txt" >"$W/open.out" 2>&1
expect_rc 0 $? "open division with another model size"

# 4. Bad ratings files: the run is recorded as aborted with the file and line; earlier results
#    stay; `prepare --scale full` reports the same error with exit code 2.
bad_data() {  # bad_data <name> <awk program over the good file> <expected message> <prepare --scale full rc>
  mkdir -p "$W/$1"
  awk "$2" "$D/ratings.csv" >"$W/$1/ratings.csv"
  "$TB" run recommendation --data "$W/$1" --runs 1 --seed 4 --threads 2 --max-steps 5 \
    --results "$R" --system testsys --no-progress >"$W/$1.run.out" 2>&1
  expect_rc 1 $? "run on $1"
  local log
  log=$(ls -t "$R"/testsys/recommendation/result_*.txt | head -1)
  expect_grep '"key": "run_stop".*"status": "aborted".*"error": ".*'"$3" "$log" "run_stop of $1 names the place"
  "$TB" prepare recommendation --scale full --data "$W/$1" >"$W/$1.prep.out" 2>&1
  expect_rc "$4" $? "prepare --scale full on $1"
}
bad_data missing_column 'NR==50 {print "1,2,3"; next} {print}' "$W/missing_column/ratings.csv:50: expected 4 columns" 2
expect_grep "missing_column/ratings.csv:50: expected 4 columns" "$W/missing_column.prep.out" "prepare names file and line"
bad_data non_numeric 'NR==77 {print "1,2,x3.5,99"; next} {print}' "non_numeric/ratings.csv:77: column rating: .*x3.5.* is not a number" 2
# User 1 keeps only 3 ratings (lines 2-4): too few for the split (mini: an error, not a drop).
bad_data sparse_user 'NR==1 || $0 !~ /^1,/ || ++n <= 3 {print}' "sparse_user/ratings.csv:4: user 1 has 3 distinct rating" 0
# Full scale drops such a user as the reference does.
expect_grep "1 dropped" "$W/sparse_user.prep.out" "full scale drops the sparse user"
[ -f "$LOG" ] || fail "the first result disappeared"
[ "$(ls "$R/testsys/recommendation" | wc -l)" = 4 ] || fail "expected 4 result files"
echo "recommendation: all checks passed"
