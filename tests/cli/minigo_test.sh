#!/usr/bin/env bash
# The reinforcement-learning benchmark (MiniGo) through the real CLI:
#  1. `prepare go` records GNU Go self-play games (a few, level 0), verifies them when asked
#     again, and refuses a folder recorded with other options (naming dataset.json and the key);
#  2. an open run of a tiny configuration: two generations of self-play and training, move
#     prediction each generation, games against GNU Go at the second; its log passes `check`;
#  3. a closed run passes the closed rules; a log with another network fails them;
#  4. full scale on a small expert collection (nested folders): `prepare go --scale full` checks
#     it and an open run of a tiny network evaluates on every game of it;
#  5. bad input: a malformed SGF and an illegal move in a held-out game, an opponent that
#     crashes and one that answers GTP errors: each ends the run as aborted with an error naming
#     the file and line (or the command and the answer), and an earlier result is untouched.
set -u
TB=$1; W=$2
. "$(dirname "$0")/lib.sh"
[ -x /usr/games/gnugo ] || { echo "SKIP: /usr/games/gnugo missing (Debian package gnugo)"; exit 0; }
rm -rf "$W"; mkdir -p "$W"
D=$W/data
"$TB" prepare go --data "$D" --set games=4 --set level=0 >"$W/prep.out" 2>&1
expect_rc 0 $? "prepare go"
expect_grep "recorded; 4 games" "$W/prep.out" "records 4 games"
[ -s "$D/test/game_0004.sgf" ] && [ -s "$D/dataset.json" ] || fail "no games or dataset.json"
"$TB" prepare go --data "$D" --set games=4 --set level=0 >"$W/prep2.out" 2>&1
expect_rc 0 $? "prepare go again"
expect_grep "matches dataset.json; 4 games" "$W/prep2.out" "verifies the folder"
"$TB" prepare go --data "$D" --set games=4 --set level=2 >"$W/prep3.out" 2>&1
expect_rc 2 $? "prepare go with another level"
expect_grep "$D/dataset.json.*level: 0 here, 2 asked" "$W/prep3.out" "names dataset.json, the key and both values"
"$TB" prepare go --data "$D" --set games=x >"$W/prep4.out" 2>&1
expect_rc 2 $? "prepare go with a bad option"
expect_grep "games.*not a number" "$W/prep4.out" "names the option"

TINY=(--set games_per_generation=2 --set train_steps=4 --set readouts=16 --set eval_readouts=16 --set gnugo_level=0)
"$TB" run reinforcement_learning --division open --data "$D" --runs 1 --seed 1 --threads 2 --max-epochs 2 "${TINY[@]}" \
  --set gnugo_games=2 --set gnugo_every=2 --results "$W/open" --system testsys --no-progress >"$W/open.out" 2>&1
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { cat "$W/open.out"; fail "open run exited $rc"; }
LOG=$W/open/testsys/reinforcement_learning/result_1.txt
[ -f "$LOG" ] || { cat "$W/open.out"; fail "no log at $LOG"; }
for k in '"submission_benchmark", "value": "minigo"' '"opt_name", "value": "sgd"' '"selfplay_readouts", "value": 16' \
         '"model_board_size", "value": 9' '"komi", "value": 7.5' '"eval_gnugo_games", "value": 2'; do
  expect_grep "$k" "$LOG" "log holds $k"
done
[ "$(grep -c '"key": "eval_accuracy"' "$LOG")" = 2 ] || fail "--max-epochs 2 gives 2 evaluations"
expect_grep '"key": "eval_accuracy", "value": [0-9.e-]+, "metadata": \{.*"epoch_num": 1.*"window_samples": [0-9]+' "$LOG" "move prediction at generation 1"
expect_grep '"epoch_num": 2.*"gnugo_win_rate": [0-9.]+, "gnugo_games": 2, "gnugo_level": 0' "$LOG" "games against GNU Go at generation 2"
if grep -q '"epoch_num": 1.*gnugo_win_rate' "$LOG"; then fail "no GNU Go games at generation 1 (gnugo_every 2)"; fi
"$TB" check "$LOG" >"$W/check_open.out" 2>&1
expect_rc 0 $? "open check"

# 3. Closed division: the reference settings for one generation (aborted by the epoch limit).
"$TB" run reinforcement_learning --data "$D" --runs 1 --seed 7 --threads 2 --max-epochs 1 --set gnugo_games=0 \
  --results "$W/closed" --system testsys --no-progress >"$W/closed.out" 2>&1
expect_rc 1 $? "closed run (aborted by the epoch limit)"
CL=$W/closed/testsys/reinforcement_learning/result_1.txt
"$TB" check "$CL" >"$W/check_closed.out" 2>&1
expect_rc 0 $? "closed check"
sed 's/"key": "model_filters", "value": [0-9]*/"key": "model_filters", "value": 99/' "$CL" >"$W/changed.txt"
"$TB" check "$W/changed.txt" >"$W/check_changed.out" 2>&1
expect_rc 1 $? "closed check of a changed network"
expect_grep "model_filters" "$W/check_changed.out" "names model_filters"
"$TB" run reinforcement_learning --data "$D" --runs 1 --seed 7 --threads 2 --max-epochs 1 --set readouts=8 \
  --results "$W/closed" --system testsys --no-progress >"$W/closed_readouts.out" 2>&1
expect_rc 2 $? "closed run with other readouts"
expect_grep "readouts" "$W/closed_readouts.out" "names the key"

# 4. Full scale: any folder of SGF games, searched recursively.
F=$W/expert
mkdir -p "$F/a/b"
cp "$D/test/game_0001.sgf" "$D/test/game_0002.sgf" "$F/a/"
cp "$D/test/game_0003.sgf" "$F/a/b/"
"$TB" prepare go --scale full --data "$F" >"$W/prep_full.out" 2>&1
expect_rc 0 $? "prepare go --scale full"
expect_grep "3 9x9 games, [0-9]+ positions, every move legal" "$W/prep_full.out" "counts the collection"
"$TB" run reinforcement_learning --scale full --division open --data "$F" --runs 1 --seed 3 --threads 2 --max-epochs 1 \
  "${TINY[@]}" --set filters=8 --set blocks=1 --set train_steps=2 --set batch_size=16 --set gating_games=2 --set gnugo_games=0 \
  --results "$W/full" --system testsys --no-progress >"$W/full.out" 2>&1
expect_rc 1 $? "full-scale run (aborted by the epoch limit)"
FL=$W/full/testsys/reinforcement_learning/result_1.txt
expect_grep '"key": "trainbench_scale", "value": "full"' "$FL" "logs the full scale"
expect_grep '"eval_accuracy".*"gating_win_rate": [0-9.]+, "gating_accepted": (true|false)' "$FL" "logs the gate"
"$TB" check "$FL" >"$W/check_full.out" 2>&1
expect_rc 0 $? "full-scale open check"
printf '(;GM[1]FF[4]SZ[13];B[gg])\n' >"$F/a/b/big.sgf"
"$TB" prepare go --scale full --data "$F" >"$W/prep_full_bad.out" 2>&1
expect_rc 2 $? "prepare go --scale full with a 13x13 game"
expect_grep "$F/a/b/big.sgf.*13x13" "$W/prep_full_bad.out" "names the file and its size"

# 5. Bad input. The earlier open result must stay as it is.
before=$(md5sum "$LOG")
B=$W/bad
cp -r "$D" "$B"
printf '(;GM[1]FF[4]SZ[9]\n;B[ee]\n;W[ee])\n' >"$B/test/game_0002.sgf"
"$TB" run reinforcement_learning --division open --data "$B" --runs 1 --seed 9 --threads 2 --max-epochs 1 "${TINY[@]}" \
  --results "$W/open" --system testsys --no-progress >"$W/illegal.out" 2>&1
expect_rc 1 $? "run on a record with an illegal move"
expect_grep "game_0002.sgf:3: move 2 \(W\[ee\]\): illegal: point occupied" "$W/illegal.out" "names the file, line and move"
expect_grep '"key": "run_stop".*"status": "aborted"' "$W/open/testsys/reinforcement_learning/result_2.txt" "aborted run logged"
printf '(;GM[1]FF[4]SZ[9];B[ee];W[' >"$B/test/game_0002.sgf"
"$TB" run reinforcement_learning --division open --data "$B" --runs 1 --seed 9 --threads 2 --max-epochs 1 "${TINY[@]}" \
  --results "$W/open" --system testsys --no-progress >"$W/malformed.out" 2>&1
expect_rc 1 $? "run on a malformed record"
expect_grep "game_0002.sgf:1" "$W/malformed.out" "names the malformed file and line"
# Opponents that crash, or answer every command with a GTP error.
"$TB" run reinforcement_learning --division open --data "$D" --runs 1 --seed 9 --threads 2 --max-epochs 1 "${TINY[@]}" \
  --set gnugo_games=1 --set gnugo_every=1 --set gnugo_binary=/bin/false \
  --results "$W/open" --system testsys --no-progress >"$W/crash.out" 2>&1
expect_rc 1 $? "run against an opponent that exits"
expect_grep "boardsize" "$W/crash.out" "names the command the crashed opponent did not answer"
cat >"$W/grumpy.sh" <<'SH'
#!/bin/sh
while read -r line; do printf '? not today\n\n'; done
SH
chmod +x "$W/grumpy.sh"
"$TB" run reinforcement_learning --division open --data "$D" --runs 1 --seed 9 --threads 2 --max-epochs 1 "${TINY[@]}" \
  --set gnugo_games=1 --set gnugo_every=1 --set gnugo_binary="$W/grumpy.sh" \
  --results "$W/open" --system testsys --no-progress >"$W/grumpy.out" 2>&1
expect_rc 1 $? "run against an opponent that answers errors"
expect_grep "boardsize 9.*not today" "$W/grumpy.out" "names the command and the answer"
[ "$(md5sum "$LOG")" = "$before" ] || fail "result_1.txt changed"
expect_grep '"key": "run_stop".*"status": "aborted", "error": ".*boardsize 9.*not today' \
  "$W/open/testsys/reinforcement_learning/result_5.txt" "the log's run_stop holds the error"
echo PASS
