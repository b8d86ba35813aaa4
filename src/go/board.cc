#include "go/board.h"

#include <algorithm>
#include <sstream>

#include "core/error.h"
#include "core/random.h"

namespace trainbench::go {

namespace {

constexpr int kDirs[4] = {-kStride, kStride, -1, 1};

struct Zobrist {
  std::array<std::array<uint64_t, kPoints>, 3> keys{};
  Zobrist() {
    // The SplitMix64 sequence: Mix64 adds the golden-ratio increment itself.
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (auto& row : keys) {
      for (auto& k : row) {
        k = core::Mix64(s);
        s += 0x9e3779b97f4a7c15ull;
      }
    }
  }
};

const Zobrist& Keys() {
  static const Zobrist z;
  return z;
}

}  // namespace

char ColorChar(Color c) { return c == kBlack ? 'X' : c == kWhite ? 'O' : c == kEmpty ? '.' : '#'; }

uint64_t ZobristKey(Color c, int p) { return Keys().keys[c][p]; }

Board::Board(int size) : size_(size) {
  if (size < 1 || size > kMaxSize)
    throw core::Error("board size " + std::to_string(size) + " is outside 1..19");
  color_.fill(kBorder);
  for (int r = 0; r < size; ++r) {
    for (int c = 0; c < size; ++c) color_[Index(r, c)] = kEmpty;
  }
}

bool Board::InAtari(int h) const {
  return pl_[h] > 0 && pl_sum_[h] * pl_sum_[h] == pl_[h] * pl_sq_[h];
}

void Board::AddLiberty(int h, int p) {
  pl_[h] += 1;
  pl_sum_[h] += p;
  pl_sq_[h] += static_cast<int64_t>(p) * p;
}

void Board::RemoveLiberty(int h, int p) {
  pl_[h] -= 1;
  pl_sum_[h] -= p;
  pl_sq_[h] -= static_cast<int64_t>(p) * p;
}

bool Board::IsLegal(Color c, int p) const {
  if (p == kPass) return true;
  if (!OnBoard(p) || color_[p] != kEmpty) return false;
  if (p == ko_point_ && c == ko_color_) return false;
  for (int d : kDirs) {
    const int n = p + d;
    const Color nc = color_[n];
    if (nc == kEmpty) return true;
    if (nc == kBorder) continue;
    const int h = head_[n];
    // An own chain with a liberty besides p, or an opponent chain whose last liberty is p.
    if (nc == c && !InAtari(h)) return true;
    if (nc != c && InAtari(h)) return true;
  }
  return false;
}

void Board::PlaceStone(Color c, int p) {
  color_[p] = c;
  head_[p] = static_cast<int16_t>(p);
  next_[p] = static_cast<int16_t>(p);
  count_[p] = 1;
  pl_[p] = 0;
  pl_sum_[p] = 0;
  pl_sq_[p] = 0;
  hash_ ^= ZobristKey(c, p);
  for (int d : kDirs) {
    const int n = p + d;
    if (color_[n] == kEmpty) {
      AddLiberty(p, n);
    } else if (color_[n] == kBlack || color_[n] == kWhite) {
      RemoveLiberty(head_[n], p);
    }
  }
}

void Board::Merge(int a, int b) {
  // Relabel the smaller chain into the larger.
  if (count_[a] < count_[b]) std::swap(a, b);
  int s = b;
  do {
    head_[s] = static_cast<int16_t>(a);
    s = next_[s];
  } while (s != b);
  std::swap(next_[a], next_[b]);
  count_[a] += count_[b];
  pl_[a] += pl_[b];
  pl_sum_[a] += pl_sum_[b];
  pl_sq_[a] += pl_sq_[b];
}

int Board::RemoveChain(int h) {
  const std::vector<int> stones = Chain(h);
  for (int p : stones) {
    hash_ ^= ZobristKey(color_[p], p);
    color_[p] = kEmpty;
  }
  for (int p : stones) {
    // Each neighbouring stone gains p as a (pseudo-)liberty, once per adjacency.
    for (int d : kDirs) {
      const int n = p + d;
      if (color_[n] == kBlack || color_[n] == kWhite) AddLiberty(head_[n], p);
    }
  }
  return static_cast<int>(stones.size());
}

bool Board::Play(Color c, int p) {
  if (p == kPass) {
    ko_point_ = kPass;
    ko_color_ = kEmpty;
    return true;
  }
  if (!IsLegal(c, p)) return false;
  PlayLegal(c, p);
  return true;
}

void Board::PlayLegal(Color c, int p) {
  PlaceStone(c, p);
  for (int d : kDirs) {
    const int n = p + d;
    if (color_[n] == c && head_[n] != head_[p]) Merge(head_[n], head_[p]);
  }
  int captured = 0, last_captured = kPass;
  const Color o = Opponent(c);
  for (int d : kDirs) {
    const int n = p + d;
    if (color_[n] == o && pl_[head_[n]] == 0) {
      last_captured = n;
      captured += RemoveChain(head_[n]);
    }
  }
  captured_[c] += captured;
  const int h = head_[p];
  ko_point_ = kPass;
  ko_color_ = kEmpty;
  if (captured == 1 && count_[h] == 1 && InAtari(h)) {
    ko_point_ = last_captured;
    ko_color_ = o;
  }
}

bool Board::Setup(Color c, int p) {
  if (!OnBoard(p)) return false;
  if (color_[p] != kEmpty) {
    // Rebuild without the stone: simplest correct way for rare setup edits.
    Board b(size_);
    for (int q = 0; q < kPoints; ++q) {
      if (q != p && (color_[q] == kBlack || color_[q] == kWhite) && !b.Setup(color_[q], q))
        return false;
    }
    b.captured_ = captured_;
    *this = b;
  }
  if (c == kEmpty) return true;
  PlaceStone(c, p);
  for (int d : kDirs) {
    const int n = p + d;
    if (color_[n] == c && head_[n] != head_[p]) Merge(head_[n], head_[p]);
  }
  ko_point_ = kPass;
  ko_color_ = kEmpty;
  // Setup never captures: every chain touching p must still have a liberty.
  if (pl_[head_[p]] == 0) return false;
  for (int d : kDirs) {
    const int n = p + d;
    if ((color_[n] == kBlack || color_[n] == kWhite) && pl_[head_[n]] == 0) return false;
  }
  return true;
}

std::vector<int> Board::LegalMoves(Color c) const {
  std::vector<int> out;
  for (int r = 0; r < size_; ++r) {
    for (int col = 0; col < size_; ++col) {
      int p = Index(r, col);
      if (IsLegal(c, p)) out.push_back(p);
    }
  }
  return out;
}

int Board::stones(Color c) const {
  int n = 0;
  for (Color x : color_) n += x == c;
  return n;
}

std::vector<int> Board::Chain(int p) const {
  std::vector<int> out;
  int s = p;
  do {
    out.push_back(s);
    s = next_[s];
  } while (s != p);
  return out;
}

int Board::Liberties(int p) const {
  std::array<bool, kPoints> seen{};
  int libs = 0;
  for (int s : Chain(p)) {
    for (int d : kDirs) {
      int n = s + d;
      if (color_[n] == kEmpty && !seen[n]) {
        seen[n] = true;
        ++libs;
      }
    }
  }
  return libs;
}

std::vector<Color> Board::Territory() const {
  std::vector<Color> owner(static_cast<size_t>(size_ * size_), kEmpty);
  std::array<bool, kPoints> seen{};
  std::vector<int> region, stack;
  for (int r = 0; r < size_; ++r) {
    for (int c = 0; c < size_; ++c) {
      int p = Index(r, c);
      if (color_[p] != kEmpty) {
        owner[r * size_ + c] = color_[p];
        continue;
      }
      if (seen[p]) continue;
      // Flood the empty region; note which colours it touches.
      bool black = false, white = false;
      region.clear();
      stack.assign(1, p);
      seen[p] = true;
      while (!stack.empty()) {
        int q = stack.back();
        stack.pop_back();
        region.push_back(q);
        for (int d : kDirs) {
          int n = q + d;
          if (color_[n] == kEmpty && !seen[n]) {
            seen[n] = true;
            stack.push_back(n);
          }
          black |= color_[n] == kBlack;
          white |= color_[n] == kWhite;
        }
      }
      Color o = black == white ? kEmpty : (black ? kBlack : kWhite);
      for (int q : region) owner[Row(q) * size_ + Col(q)] = o;
    }
  }
  return owner;
}

double Board::Score(double komi) const {
  int b = 0, w = 0;
  for (Color c : Territory()) {
    b += c == kBlack;
    w += c == kWhite;
  }
  return b - (w + komi);
}

bool Board::operator==(const Board& o) const {
  if (size_ != o.size_) return false;
  for (int p = 0; p < kPoints; ++p) {
    if (color_[p] != o.color_[p]) return false;
  }
  return true;
}

void Board::AssignUsed(const Board& o) {
  if (size_ != o.size_) {
    *this = o;
    return;
  }
  const size_t n = static_cast<size_t>(UsedPoints());
  std::copy_n(o.color_.begin(), n, color_.begin());
  std::copy_n(o.head_.begin(), n, head_.begin());
  std::copy_n(o.next_.begin(), n, next_.begin());
  std::copy_n(o.count_.begin(), n, count_.begin());
  std::copy_n(o.pl_.begin(), n, pl_.begin());
  std::copy_n(o.pl_sum_.begin(), n, pl_sum_.begin());
  std::copy_n(o.pl_sq_.begin(), n, pl_sq_.begin());
  ko_point_ = o.ko_point_;
  ko_color_ = o.ko_color_;
  captured_ = o.captured_;
  hash_ = o.hash_;
}

std::string Board::ToText() const {
  std::string s;
  for (int r = 0; r < size_; ++r) {
    for (int c = 0; c < size_; ++c) s += ColorChar(at(r, c));
    s += '\n';
  }
  return s;
}

Board Board::FromText(const std::string& text) {
  std::vector<std::string> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::string row;
    for (char ch : line) {
      if (ch != ' ' && ch != '\t' && ch != '\r') row += ch;
    }
    if (!row.empty()) rows.push_back(row);
  }
  const int n = static_cast<int>(rows.size());
  if (n < 1 || n > kMaxSize)
    throw core::Error("board text: " + std::to_string(n) + " rows, expected 1..19");
  Board b(n);
  for (int r = 0; r < n; ++r) {
    if (static_cast<int>(rows[r].size()) != n) {
      throw core::Error("board text: row " + std::to_string(r + 1) + " has " +
                        std::to_string(rows[r].size()) + " points, expected " + std::to_string(n));
    }
    for (int c = 0; c < n; ++c) {
      char ch = rows[r][c];
      Color col = ch == 'X' || ch == 'x'   ? kBlack
                  : ch == 'O' || ch == 'o' ? kWhite
                  : ch == '.'              ? kEmpty
                                           : kBorder;
      if (col == kBorder) {
        throw core::Error("board text: row " + std::to_string(r + 1) + " column " +
                          std::to_string(c + 1) + ": unexpected character '" + std::string(1, ch) +
                          "' (expected . X O)");
      }
      if (col != kEmpty) b.PlaceStone(col, Index(r, c));
    }
  }
  // Merge chains after all stones are down, then check liberties.
  for (int p = 0; p < kPoints; ++p) {
    if (b.color_[p] != kBlack && b.color_[p] != kWhite) continue;
    for (int d : kDirs) {
      int q = p + d;
      if (b.color_[q] == b.color_[p] && b.head_[q] != b.head_[p]) b.Merge(b.head_[q], b.head_[p]);
    }
  }
  for (int p = 0; p < kPoints; ++p) {
    if ((b.color_[p] == kBlack || b.color_[p] == kWhite) && b.pl_[b.head_[p]] == 0) {
      throw core::Error("board text: the chain at row " + std::to_string(Row(p) + 1) + " column " +
                        std::to_string(Col(p) + 1) + " has no liberties");
    }
  }
  return b;
}

}  // namespace trainbench::go
