#include "go/sgf.h"

#include <cctype>
#include <cmath>
#include <cstdio>

#include "core/atomic_file.h"
#include "core/error.h"

namespace trainbench::go {

namespace {

struct Property {
  std::string id;
  std::vector<std::string> values;
  int line = 0;
};
using Node = std::vector<Property>;

class Parser {
 public:
  Parser(const std::string& text, const std::string& file) : s_(text), file_(file) {}

  std::vector<std::vector<Node>> Collection() {
    std::vector<std::vector<Node>> games;
    SkipSpace();
    while (pos_ < s_.size()) {
      if (s_[pos_] != '(') Fail("expected '(' to start a game tree");
      std::vector<Node> main;
      Tree(&main);
      games.push_back(std::move(main));
      SkipSpace();
    }
    if (games.empty()) Fail("no game tree");
    return games;
  }

 private:
  [[noreturn]] void Fail(const std::string& why) const { throw core::FileError(file_, line_, why); }

  void SkipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) {
      if (s_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }

  // '(' sequence subtrees ')'; appends the main line to `main` (null: syntax only).
  void Tree(std::vector<Node>* main) {
    ++pos_;  // '('
    SkipSpace();
    if (pos_ >= s_.size() || s_[pos_] != ';') Fail("expected ';' to start a node");
    while (pos_ < s_.size() && s_[pos_] == ';') {
      ++pos_;
      Node n = NodeProps();
      if (main) main->push_back(std::move(n));
      SkipSpace();
    }
    bool first = true;
    while (pos_ < s_.size() && s_[pos_] == '(') {
      Tree(first ? main : nullptr);
      first = false;
      SkipSpace();
    }
    if (pos_ >= s_.size()) Fail("unexpected end of file: a game tree is not closed with ')'");
    if (s_[pos_] != ')') Fail(std::string("unexpected '") + s_[pos_] + "'");
    ++pos_;
  }

  Node NodeProps() {
    Node n;
    SkipSpace();
    while (pos_ < s_.size() && std::isupper(static_cast<unsigned char>(s_[pos_]))) {
      Property p;
      p.line = line_;
      while (pos_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[pos_]))) {
        if (std::isupper(static_cast<unsigned char>(s_[pos_])))
          p.id += s_[pos_];  // FF[3] lower-case letters are ignored
        ++pos_;
      }
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '[') Fail("property " + p.id + " has no value");
      while (pos_ < s_.size() && s_[pos_] == '[') {
        ++pos_;
        std::string v;
        while (true) {
          if (pos_ >= s_.size()) Fail("unexpected end of file inside the value of " + p.id);
          char c = s_[pos_++];
          if (c == '\n') ++line_;
          if (c == '\\') {
            if (pos_ >= s_.size()) Fail("unexpected end of file inside the value of " + p.id);
            char e = s_[pos_++];
            if (e == '\n') {
              ++line_;  // soft line break
              continue;
            }
            v += e;
            continue;
          }
          if (c == ']') break;
          v += c;
        }
        p.values.push_back(v);
        SkipSpace();
      }
      n.push_back(std::move(p));
    }
    return n;
  }

  const std::string& s_;
  const std::string& file_;
  size_t pos_ = 0;
  int line_ = 1;
};

std::string Trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

}  // namespace

std::string IllegalReason(const Board& b, Color c, int p) {
  if (p == kPass) return "";
  if (!b.OnBoard(p)) return "off the board";
  if (b.at(p) != kEmpty) return "point occupied";
  if (b.IsLegal(c, p)) return "";
  if (p == b.ko_point()) return "ko (immediate recapture)";
  return "suicide";
}

std::vector<SgfRecord> ParseSgf(const std::string& text, const std::string& file) {
  Parser parser(text, file);
  std::vector<SgfRecord> out;
  for (const auto& nodes : parser.Collection()) {
    SgfRecord r;
    r.line = nodes.empty() || nodes[0].empty() ? 0 : nodes[0][0].line;
    // Root first: the size decides how points parse.
    for (const auto& p : nodes[0]) {
      const std::string v = Trim(p.values[0]);
      if (p.id == "GM" && v != "1")
        throw core::FileError(file, p.line, "GM[" + v + "]: not a game of Go (GM[1])");
      if (p.id == "SZ") {
        if (v.find(':') != std::string::npos)
          throw core::FileError(file, p.line,
                                "SZ[" + v + "]: rectangular boards are not supported");
        try {
          size_t used = 0;
          r.size = std::stoi(v, &used);
          if (used != v.size()) throw std::invalid_argument(v);
        } catch (const std::exception&) {
          throw core::FileError(file, p.line, "SZ[" + v + "]: not a number");
        }
        if (r.size < 1 || r.size > kMaxSize)
          throw core::FileError(file, p.line, "SZ[" + v + "]: size outside 1..19");
      }
    }
    Board setup(r.size);
    bool moved = false;
    int move_number = 0;
    for (const auto& node : nodes) {
      for (const auto& p : node) {
        const std::string v0 = Trim(p.values[0]);
        if (p.id == "KM") {
          try {
            r.komi = std::stod(v0);
          } catch (const std::exception&) {
            throw core::FileError(file, p.line, "KM[" + v0 + "]: not a number");
          }
        } else if (p.id == "RU") {
          r.rules = v0;
        } else if (p.id == "PB") {
          r.black = v0;
        } else if (p.id == "PW") {
          r.white = v0;
        } else if (p.id == "RE") {
          r.result = v0;
        } else if (p.id == "PL") {
          if (v0 != "B" && v0 != "W")
            throw core::FileError(file, p.line, "PL[" + v0 + "]: expected B or W");
          r.first = v0 == "B" ? kBlack : kWhite;
        } else if (p.id == "AB" || p.id == "AW" || p.id == "AE") {
          if (moved) {
            throw core::FileError(file, p.line,
                                  p.id + ": setup stones after the first move are not supported");
          }
          const Color c = p.id == "AB" ? kBlack : p.id == "AW" ? kWhite : kEmpty;
          for (const auto& raw : p.values) {
            std::string v = Trim(raw);
            // Compressed point lists "aa:cc" (a rectangle).
            std::vector<int> pts;
            auto colon = v.find(':');
            auto a = ParseSgfPoint(colon == std::string::npos ? v : v.substr(0, colon), r.size);
            auto b = colon == std::string::npos ? a : ParseSgfPoint(v.substr(colon + 1), r.size);
            if (!a || !b || *a == kPass || *b == kPass) {
              throw core::FileError(file, p.line,
                                    p.id + "[" + v + "]: not a point on a " +
                                        std::to_string(r.size) + "x" + std::to_string(r.size) +
                                        " board");
            }
            for (int row = std::min(Board::Row(*a), Board::Row(*b));
                 row <= std::max(Board::Row(*a), Board::Row(*b)); ++row) {
              for (int col = std::min(Board::Col(*a), Board::Col(*b));
                   col <= std::max(Board::Col(*a), Board::Col(*b)); ++col) {
                pts.push_back(Board::Index(row, col));
              }
            }
            for (int q : pts) {
              if (!setup.Setup(c, q)) {
                throw core::FileError(file, p.line,
                                      p.id + "[" + v + "]: leaves a chain without liberties");
              }
            }
          }
        } else if (p.id == "B" || p.id == "W") {
          ++move_number;
          const std::string v = Trim(p.values[0]);
          auto pt = ParseSgfPoint(v, r.size);
          if (!pt) {
            throw core::FileError(file, p.line,
                                  "move " + std::to_string(move_number) + " (" + p.id + "[" + v +
                                      "]): not a point on a " + std::to_string(r.size) + "x" +
                                      std::to_string(r.size) + " board");
          }
          r.moves.push_back({Move{p.id == "B" ? kBlack : kWhite, *pt}, p.line});
          moved = true;
        }
      }
    }
    for (int q = 0; q < kPoints; ++q) {
      if (setup.OnBoard(q) && setup.at(q) != kEmpty) r.setup.emplace_back(setup.at(q), q);
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<SgfRecord> ReadSgfFile(const std::string& path) {
  return ParseSgf(core::ReadFile(path), path);
}

Game Replay(const SgfRecord& r, const std::string& file,
            const std::function<void(const Game&, const SgfMove&)>& before_move) {
  Board setup(r.size);
  for (auto [c, p] : r.setup) setup.Setup(c, p);
  Game g(setup, r.first, r.komi);
  int n = 0;
  for (const auto& m : r.moves) {
    ++n;
    if (before_move) before_move(g, m);
    const std::string why = IllegalReason(g.board(), m.move.color, m.move.point);
    if (!why.empty() || !g.Play(m.move)) {
      throw core::FileError(file, m.line,
                            "move " + std::to_string(n) + " (" +
                                (m.move.color == kBlack ? "B" : "W") + "[" +
                                SgfPoint(m.move.point) +
                                "]): illegal: " + (why.empty() ? "the game is already over" : why));
    }
  }
  return g;
}

std::string WriteSgf(const Game& g, const std::string& black, const std::string& white,
                     const std::string& result, const std::string& rules) {
  auto esc = [](const std::string& s) {
    std::string o;
    for (char c : s) {
      if (c == ']' || c == '\\') o += '\\';
      o += c;
    }
    return o;
  };
  char komi[32];
  std::snprintf(komi, sizeof(komi), "%g", g.komi());
  const int n = g.board().size();
  std::string s =
      "(;GM[1]FF[4]CA[UTF-8]AP[trainbench]SZ[" + std::to_string(n) + "]KM[" + komi + "]";
  if (!rules.empty()) s += "RU[" + esc(rules) + "]";
  if (!black.empty()) s += "PB[" + esc(black) + "]";
  if (!white.empty()) s += "PW[" + esc(white) + "]";
  std::string re = !result.empty() ? result : (g.over() ? g.Result() : "");
  if (!re.empty()) s += "RE[" + esc(re) + "]";
  std::string ab, aw;
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      int p = Board::Index(r, c);
      if (g.initial().at(p) == kBlack) ab += "[" + SgfPoint(p) + "]";
      if (g.initial().at(p) == kWhite) aw += "[" + SgfPoint(p) + "]";
    }
  }
  if (!ab.empty()) s += "AB" + ab;
  if (!aw.empty()) s += "AW" + aw;
  if (!ab.empty() || !aw.empty()) {
    Color first = g.moves().empty() ? g.to_play() : g.moves()[0].color;
    s += std::string("PL[") + (first == kBlack ? "B" : "W") + "]";
  }
  int k = 0;
  for (const auto& m : g.moves()) {
    s += std::string(";") + (m.color == kBlack ? "B" : "W") + "[" + SgfPoint(m.point) + "]";
    if (++k % 10 == 0) s += "\n";
  }
  s += ")\n";
  return s;
}

}  // namespace trainbench::go
