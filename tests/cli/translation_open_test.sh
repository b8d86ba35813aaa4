#!/usr/bin/env bash
# The translation benchmarks (translation = Transformer, rnn_translation = GNMT) through the
# real CLI, open division on a small corpus (the closed division on the mini corpus:
# translation_closed_test.sh):
#  1. on a small corpus (prepare translation with 200 sentences, 300 pieces), an open-division
#     run of each model with a tiny size trains, evaluates BLEU every epoch and ends (target or
#     epoch limit); its log carries the keys and passes `trainbench check`;
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
