# Shared helpers for the CLI test scripts.
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_rc() {  # expect_rc <expected> <actual> <what>
  [ "$1" = "$2" ] || fail "$3: exit code $2, expected $1"
}
expect_grep() {  # expect_grep <pattern> <file> <what>
  grep -q -E -- "$1" "$2" || { echo "--- $2:"; cat "$2"; fail "$3: no match for /$1/"; }
}
wait_for() {  # wait_for <pattern> <file> <seconds>
  for _ in $(seq 1 $(( $3 * 10 ))); do
    grep -q -E -- "$1" "$2" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "timed out waiting for /$1/ in $2"
}
make_short_fashion_mnist() {  # make_short_fashion_mnist <fashion-mnist dir> <out dir> <test images>
  # The training split as shipped (links), the first N images of the test split (idx files:
  # a big-endian header, then one byte per pixel or label).
  local src=$1 out=$2 n=$3 be
  mkdir -p "$out" || fail "mkdir $out"
  ln -sf "$src/train-images-idx3-ubyte.gz" "$src/train-labels-idx1-ubyte.gz" "$out/"
  be=$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((n >> 24 & 255)) $((n >> 16 & 255)) $((n >> 8 & 255)) $((n & 255)))
  { printf "\x00\x00\x08\x03$be\x00\x00\x00\x1c\x00\x00\x00\x1c"
    gzip -dc "$src/t10k-images-idx3-ubyte.gz" | tail -c +17 | head -c $((n * 784)); } |
    gzip -1 >"$out/t10k-images-idx3-ubyte.gz" || fail "short test images"
  { printf "\x00\x00\x08\x01$be"
    gzip -dc "$src/t10k-labels-idx1-ubyte.gz" | tail -c +9 | head -c "$n"; } |
    gzip -1 >"$out/t10k-labels-idx1-ubyte.gz" || fail "short test labels"
}
