#!/usr/bin/env bash
# The translation benchmarks (translation = Transformer, rnn_translation = GNMT) in the closed
# division through the real CLI, on the mini corpus with a short test split (the fixture
# translation_mini_corpus.sh), a 2-step budget (aborted runs pass `check`). Part "plain": the
# reference configuration passes the closed rules, and the closed rules reject a changed model
# (in the log, and before a run). Part "tuned": the system options are closed-legal.
set -u
TB=$1; W=$2; M=$3/mini_short; PART=$4
. "$(dirname "$0")/lib.sh"
rm -rf "$W"; mkdir -p "$W"
[ -s "$M/train.ids" ] || fail "no prepared mini corpus in $M (the fixture translation_mini_corpus)"
if [ "$PART" = plain ]; then
  for b in translation rnn_translation; do
    "$TB" run $b --data "$M" --runs 1 --seed 7 --threads 2 --max-steps 2 \
      --results "$W/closed" --system testsys --no-progress >"$W/closed_$b.out" 2>&1
    expect_rc 1 $? "$b closed run (aborted by the step budget)"
    LOG=$W/closed/testsys/$b/result_1.txt
    expect_grep '"key": "eval_samples", "value": 12,' "$LOG" "$b: evaluated on the short test split"
    "$TB" check "$LOG" >"$W/check_closed_$b.out" 2>&1
    expect_rc 0 $? "$b closed check"
  done
  # A log whose model differs from the closed one is rejected, naming the key.
  sed 's/"key": "model_hp_layers", "value": [0-9]*/"key": "model_hp_layers", "value": 9/' \
    "$W/closed/testsys/translation/result_1.txt" >"$W/changed.txt"
  "$TB" check "$W/changed.txt" >"$W/check_changed.out" 2>&1
  expect_rc 1 $? "closed check of a changed model"
  expect_grep "model_hp_layers" "$W/check_changed.out" "names model_hp_layers"
  # The closed division refuses a changed model before it runs.
  "$TB" run translation --data "$M" --runs 1 --set layers=9 --results "$W/refused" --no-progress >"$W/refused.out" 2>&1
  expect_rc 2 $? "closed run with another model"
  expect_grep "layers" "$W/refused.out" "names the key"
elif [ "$PART" = tuned ]; then
  # The system options (bf16 autocast, FusedAdam, malloc_reuse; GNMT's fused LSTM) are
  # closed-legal: logged, passed.
  for b in translation rnn_translation; do
    extra=()
    [ $b = rnn_translation ] && extra=(--set fused_lstm=true)
    "$TB" run $b --data "$M" --runs 1 --seed 7 --threads 2 --max-steps 2 \
      --set precision=bf16 --set fused_optimizer=true --set malloc_reuse=true "${extra[@]}" \
      --results "$W/tuned" --system testsys --no-progress >"$W/tuned_$b.out" 2>&1
    expect_rc 1 $? "$b bf16 + FusedAdam run (aborted by the step budget)"
    LOG=$W/tuned/testsys/$b/result_1.txt
    expect_grep '"malloc_reuse": true.*"precision": "bf16", "fused_optimizer": true' "$LOG" "$b: the options in the provenance"
    expect_grep '"key": "run_stop"' "$LOG" "$b: run_stop logged"
    [ $b = rnn_translation ] && expect_grep '"fused_lstm": true' "$LOG" "rnn_translation: fused_lstm in the provenance"
    "$TB" check "$LOG" >"$W/check_tuned_$b.out" 2>&1
    expect_rc 0 $? "$b check of the bf16 + FusedAdam run"
  done
  "$TB" run translation --data "$M" --runs 1 --set precision=fp16 --results "$W/refused" --no-progress >"$W/fp16.out" 2>&1
  expect_rc 2 $? "translation fp16 on the CPU"
  expect_grep '"precision": fp16 needs a CUDA device' "$W/fp16.out" "names the key and why"
else
  fail "part \"$PART\": plain or tuned"
fi
echo PASS
