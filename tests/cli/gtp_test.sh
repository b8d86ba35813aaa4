#!/usr/bin/env bash
# trainbench's Go player over GTP: a scripted session (administrative commands, play, genmove,
# an illegal move, final_score, quit) with the random and the MCTS player, and a whole game
# against GNU Go refereed through GTP on both sides.
set -u
TB=$1; W=$2
. "$(dirname "$0")/lib.sh"
rm -rf "$W"; mkdir -p "$W"

printf 'protocol_version\n1 name\nboardsize 9\nkomi 7.5\nclear_board\nplay b E5\nplay w E5\n2 genmove w\nfinal_score\nquit\n' \
  | "$TB" gtp --player random --seed 3 >"$W/random.out" 2>"$W/random.err"
expect_rc 0 $? "gtp session (random)"
expect_grep '^= 2$' "$W/random.out" "protocol_version"
expect_grep '^=1 trainbench$' "$W/random.out" "name with id"
expect_grep '^\? illegal move$' "$W/random.out" "occupied point refused"
expect_grep '^=2 [A-HJ][1-9]$' "$W/random.out" "genmove answers a vertex"
expect_grep '^= [BW]\+[0-9.]+$' "$W/random.out" "final_score"

printf 'boardsize 13\nboardsize 9\ngenmove b\ngenmove w\nshowboard\nquit\n' \
  | "$TB" gtp --player mcts --filters 8 --blocks 1 --readouts 16 >"$W/mcts.out" 2>"$W/mcts.err"
expect_rc 0 $? "gtp session (mcts)"
expect_grep '^\? unacceptable size$' "$W/mcts.out" "the 9x9 network refuses boardsize 13"
[ "$(grep -c -E '^= [A-HJ][1-9]$|^= pass$' "$W/mcts.out")" = 2 ] || { cat "$W/mcts.out"; fail "two genmove answers"; }
"$TB" gtp --player mcts --weights "$W/nope.pt" </dev/null >/dev/null 2>"$W/bad.err"
expect_rc 2 $? "missing weights"
expect_grep "$W/nope.pt: cannot load the network" "$W/bad.err" "names the file"

# A game against GNU Go: a referee loop over two GTP processes talking through FIFOs (no
# subshells, so the descriptors stay open).
if [ -x /usr/games/gnugo ]; then
  mkfifo "$W/tb.in" "$W/tb.out" "$W/gg.in" "$W/gg.out"
  "$TB" gtp --player random --seed 5 <"$W/tb.in" >"$W/tb.out" 2>"$W/tb.err" &
  TBPID=$!
  /usr/games/gnugo --mode gtp --level 1 --chinese-rules --seed 5 <"$W/gg.in" >"$W/gg.out" 2>/dev/null &
  GGPID=$!
  exec 3>"$W/tb.in" 4<"$W/tb.out" 5>"$W/gg.in" 6<"$W/gg.out"
  ANSWER=""
  send() {  # send <in-fd> <out-fd> <command>: sets ANSWER to the answer's first line
    echo "$3" >&"$1"
    local line
    ANSWER=""
    while IFS= read -r -t 60 line <&"$2"; do
      [ -z "$line" ] && break
      [ -z "$ANSWER" ] && ANSWER=$line
    done
  }
  for c in "boardsize 9" "clear_board" "komi 7.5"; do
    send 3 4 "$c"; send 5 6 "$c"
  done
  passes=0; moves=0
  while [ $passes -lt 2 ] && [ $moves -lt 200 ]; do
    if [ $((moves % 2)) = 0 ]; then
      send 5 6 "genmove b"; m=${ANSWER#= }; send 3 4 "play b $m"
    else
      send 3 4 "genmove w"; m=${ANSWER#= }; send 5 6 "play w $m"
    fi
    [[ "$ANSWER" =~ ^=\ *$ ]] || fail "move $moves ($m) refused: $ANSWER"
    if [ "$(echo "$m" | tr A-Z a-z)" = pass ]; then passes=$((passes + 1)); else passes=0; fi
    moves=$((moves + 1))
  done
  [ $moves -gt 20 ] || fail "game too short ($moves moves)"
  send 3 4 "final_score"; ours=$ANSWER
  echo "game of $moves moves against GNU Go; trainbench's score: $ours"
  send 3 4 quit; send 5 6 quit
  exec 3>&- 4<&- 5>&- 6<&-
  wait $TBPID $GGPID
  [[ "$ours" =~ ^=\ ([BW]\+[0-9.]+|0)$ ]] || fail "final_score: $ours"
fi
echo "gtp CLI test: OK"
