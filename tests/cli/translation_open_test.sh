#!/usr/bin/env bash
# The translation benchmarks (translation = Transformer, rnn_translation = GNMT) through the
# real CLI:
#  1. on a small corpus (prepare translation with 200 sentences, 300 pieces), an open-division
#     run of each model with a tiny size trains, evaluates BLEU every epoch and ends (target or
#     epoch limit); its log carries the keys and passes `trainbench check`;
#  2. on the real mini corpus, a closed run of each (step budget) passes the closed rules, and
#     the closed rules reject a changed model;
#  3. bad input (a corrupt ids file, a vocabulary of the wrong size) ends the run as aborted with
#     an error naming the file and line, and an earlier result file is untouched.
set -u
TB=$1; W=$2
. "$(dirname "$0")/lib.sh"
rm -rf "$W"; mkdir -p "$W"
S=$W/small
"$TB" prepare translation --data "$S" --set max_sentences=200 --set test_size=20 --set vocab_size=300 >"$W/prep.out" 2>&1
expect_rc 0 $? "prepare (small)"
for f in train.ids test.ids spm.vocab; do [ -s "$S/$f" ] || fail "no $f"; done

TINY_T=(--set vocab_size=300 --set d_model=32 --set heads=2 --set ffn_dim=64 --set layers=1 --set eval_batch_sentences=8 --set warmup_steps=10)
TINY_G=(--set vocab_size=300 --set hidden_size=32 --set eval_batch_sentences=8)
i=0
for b in translation rnn_translation; do
  i=$((i + 1))
  if [ $b = translation ]; then TINY=("${TINY_T[@]}"); LOGNAME=transformer; else TINY=("${TINY_G[@]}"); LOGNAME=gnmt; fi
  "$TB" run $b --division open --data "$S" --runs 1 --seed $i --threads 2 --max-epochs 3 "${TINY[@]}" --set batch_tokens=512 \
    --results "$W/open" --system testsys --no-progress >"$W/open_$b.out" 2>&1
  rc=$?
  [ $rc = 0 ] || [ $rc = 1 ] || fail "$b open run exited $rc"
  LOG=$W/open/testsys/$b/result_1.txt
  [ -f "$LOG" ] || fail "no log at $LOG"
  for k in "\"submission_benchmark\", \"value\": \"$LOGNAME\"" '"opt_name", "value": "adam"' \
           '"model_hp_label_smoothing", "value": 0.1' '"eval_hp_beam_size", "value": [45]' \
           '"global_batch_size", "value": 512' '"train_samples", "value": 180' '"eval_samples", "value": 20'; do
    expect_grep "$k" "$LOG" "$b log holds $k"
  done
  # BLEU logged as a fraction (MLLOG since v0.7), the 0-100 score and sacreBLEU's line in the metadata.
  expect_grep '"key": "eval_accuracy", "value": (0|0\.[0-9]+|[0-9.]+e-[0-9]+), "metadata": \{.*"epoch_num": 3.*"bleu_score": [0-9.e-]+, "bleu": "BLEU = ' "$LOG" "$b: BLEU at epoch 3"
  expect_grep '"key": "max_sequence_length", "value": [0-9]+, "metadata": \{.*"method": "discard"' "$LOG" "$b: max_sequence_length and its method"
  [ $b = rnn_translation ] && expect_grep '"key": "opt_learning_rate_decay_steps", "value": 0,' "$LOG" "gnmt: no decays logged"
  [ "$(grep -c '"key": "eval_accuracy"' "$LOG")" = 3 ] || fail "$b: --max-epochs 3 gives 3 evaluations"
  expect_grep '"key": "trainbench_config_effective".*"max_epochs": 3' "$LOG" "$b: the epoch limit is logged"
  "$TB" check "$LOG" >"$W/check_open_$b.out" 2>&1
  expect_rc 0 $? "$b open check"
done

# 2. The real mini corpus, closed division, a step budget (aborted runs pass `check`).
M=$W/mini
"$TB" prepare translation --data "$M" >"$W/prep_mini.out" 2>&1
expect_rc 0 $? "prepare (mini)"
# The runs below keep the mini corpus's vocabulary, training pairs and model (closed-legal) but
# evaluate on its first 60 test sentences: after a 2-step budget the model is untrained and
# beam-decodes every sentence to the length limit, which over all 1000 took minutes (bf16 is
# emulated where the CPU lacks it). The closed rules do not look at the test split.
MS=$W/mini_short
cp -r "$M" "$MS"
for f in test.ids test.en test.es; do head -n 60 "$M/$f" >"$MS/$f"; done
M=$MS
for b in translation rnn_translation; do
  "$TB" run $b --data "$M" --runs 1 --seed 7 --threads 2 --max-steps 2 \
    --results "$W/closed" --system testsys --no-progress >"$W/closed_$b.out" 2>&1
  expect_rc 1 $? "$b closed run (aborted by the step budget)"
  LOG=$W/closed/testsys/$b/result_1.txt
  "$TB" check "$LOG" >"$W/check_closed_$b.out" 2>&1
  expect_rc 0 $? "$b closed check"
done
# The system options (bf16 autocast, FusedAdam, malloc_reuse; GNMT's fused LSTM) are closed-legal:
# logged, passed.
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

# 3. Bad input: aborted runs naming the file and line; the earlier result is untouched.
B=$W/bad
cp -r "$S" "$B"
before=$(md5sum "$W/open/testsys/translation/result_1.txt")
sed -i '3s/.*/4 5 x\t6/' "$B/train.ids"
"$TB" run translation --division open --data "$B" --runs 1 --seed 9 --threads 2 --max-epochs 1 "${TINY_T[@]}" \
  --results "$W/open" --system testsys --no-progress >"$W/bad.out" 2>&1
expect_rc 1 $? "run on a corrupt ids file"
expect_grep "$B/train.ids:3: source token 3: \"x\" is not an id" "$W/bad.out" "names the file and line"
expect_grep '"key": "run_stop".*"status": "aborted"' "$W/open/testsys/translation/result_2.txt" "aborted run logged"
[ "$(md5sum "$W/open/testsys/translation/result_1.txt")" = "$before" ] || fail "result_1.txt changed"
cp "$S/train.ids" "$B/train.ids"
"$TB" run rnn_translation --division open --data "$B" --runs 1 --seed 9 --threads 2 --max-epochs 1 "${TINY_G[@]}" --set vocab_size=301 \
  --results "$W/open" --system testsys --no-progress >"$W/badvocab.out" 2>&1
expect_rc 1 $? "run with a vocabulary of another size"
expect_grep "$B/spm.vocab: holds 300 pieces; configuration key \"vocab_size\" is 301" "$W/badvocab.out" "names the vocabulary"
echo PASS
