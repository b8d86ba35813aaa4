#include "go/game.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace trainbench::go {

std::optional<double> ParseKomi(const std::string& text) {
  // [+-] digits [. digits] [e[+-]digits], at least one digit before the exponent.
  size_t i = 0, digits = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) ++digits;
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) ++digits;
  }
  if (digits == 0) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    size_t exp_digits = 0;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) ++exp_digits;
    if (exp_digits == 0) return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  const double v = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(v) || std::fabs(v) > kMaxKomi) return std::nullopt;
  return v;
}

namespace {
constexpr char kGtpColumns[] = "ABCDEFGHJKLMNOPQRST";  // no I
}

std::optional<int> ParseGtpVertex(const std::string& v, int size) {
  std::string s;
  for (char c : v) s += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (s == "PASS") return kPass;
  if (s.size() < 2 || s.size() > 3) return std::nullopt;
  int col = -1;
  for (int i = 0; i < size; ++i) {
    if (kGtpColumns[i] == s[0]) col = i;
  }
  if (col < 0) return std::nullopt;
  int row_num = 0;
  for (size_t i = 1; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
    row_num = row_num * 10 + (s[i] - '0');
  }
  if (row_num < 1 || row_num > size) return std::nullopt;
  return Board::Index(size - row_num, col);
}

char GtpColumn(int col) { return kGtpColumns[col]; }

std::string GtpVertex(int point, int size) {
  if (point == kPass) return "pass";
  return std::string(1, kGtpColumns[Board::Col(point)]) + std::to_string(size - Board::Row(point));
}

std::optional<int> ParseSgfPoint(const std::string& v, int size) {
  if (v.empty() || (v == "tt" && size <= 19)) return kPass;
  if (v.size() != 2) return std::nullopt;
  int col = v[0] - 'a', row = v[1] - 'a';
  if (col < 0 || col >= size || row < 0 || row >= size) return std::nullopt;
  return Board::Index(row, col);
}

std::string SgfPoint(int point) {
  if (point == kPass) return "";
  return std::string(1, static_cast<char>('a' + Board::Col(point))) +
         std::string(1, static_cast<char>('a' + Board::Row(point)));
}

Game::Game(int size, double komi) : initial_(size), board_(size), komi_(komi) {}

Game::Game(const Board& setup, Color to_play, double komi)
    : initial_(setup), board_(setup), to_play_(to_play), komi_(komi) {}

bool Game::Play(const Move& m) {
  if (over()) return false;
  if (!board_.Play(m.color, m.point)) return false;
  moves_.push_back(m);
  passes_ = m.point == kPass ? passes_ + 1 : 0;
  to_play_ = Opponent(m.color);
  return true;
}

void Game::Resign(Color c) { resigned_ = c; }

Color Game::Winner() const {
  if (resigned_ != kEmpty) return Opponent(resigned_);
  double s = Score();
  return s > 0 ? kBlack : s < 0 ? kWhite : kEmpty;
}

std::string Game::Result() const {
  if (resigned_ != kEmpty) return std::string(resigned_ == kBlack ? "W" : "B") + "+R";
  double s = Score();
  if (s == 0) return "0";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%s+%g", s > 0 ? "B" : "W", std::fabs(s));
  return buf;
}

}  // namespace trainbench::go
