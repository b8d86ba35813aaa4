#include "core/utf8.h"

#include <cstdio>

#include "core/error.h"

namespace trainbench::core {

std::string Utf8Error::Message() const {
  return "invalid UTF-8 at byte " + std::to_string(offset) + ": " + reason;
}

namespace {

std::string Hex(unsigned v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%0*X", digits, v);
  return buf;
}

}  // namespace

std::optional<char32_t> DecodeUtf8At(std::string_view s, size_t* pos, Utf8Error* error) {
  const size_t i = *pos;
  auto fail = [&](std::string reason) -> std::optional<char32_t> {
    if (error) *error = Utf8Error{i, std::move(reason)};
    return std::nullopt;
  };
  if (i >= s.size()) return fail("unexpected end of text");
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    *pos = i + 1;
    return static_cast<char32_t>(b0);
  }
  int len = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else if (b0 >= 0x80 && b0 <= 0xBF) {
    return fail("unexpected continuation byte 0x" + Hex(b0, 2));
  } else if (b0 == 0xC0 || b0 == 0xC1) {
    return fail("overlong encoding (lead byte 0x" + Hex(b0, 2) + ")");
  } else {
    return fail("invalid byte 0x" + Hex(b0, 2));
  }
  for (int k = 1; k < len; ++k) {
    if (i + k >= s.size())
      return fail("truncated sequence (" + std::to_string(len) + "-byte sequence, " +
                  std::to_string(s.size() - i) + " bytes left)");
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80)
      return fail("truncated sequence (byte 0x" + Hex(b, 2) +
                  " where a continuation byte belongs)");
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min) return fail("overlong encoding of U+" + Hex(cp, 4));
  if (cp >= 0xD800 && cp <= 0xDFFF) return fail("surrogate U+" + Hex(cp, 4));
  if (cp > 0x10FFFF) return fail("code point U+" + Hex(cp, 4) + " above U+10FFFF");
  *pos = i + len;
  return cp;
}

std::optional<Utf8Error> FindInvalidUtf8(std::string_view s) {
  size_t pos = 0;
  Utf8Error e;
  while (pos < s.size()) {
    // Fast path for ASCII runs.
    if (static_cast<unsigned char>(s[pos]) < 0x80) {
      ++pos;
      continue;
    }
    if (!DecodeUtf8At(s, &pos, &e)) return e;
  }
  return std::nullopt;
}

std::u32string DecodeUtf8(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  size_t pos = 0;
  Utf8Error e;
  while (pos < s.size()) {
    auto cp = DecodeUtf8At(s, &pos, &e);
    if (!cp) throw core::Error(e.Message());
    out.push_back(*cp);
  }
  return out;
}

void AppendUtf8(char32_t cp, std::string* out) {
  TB_CHECK(cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF),
           "not a Unicode scalar value: " << static_cast<unsigned long>(cp));
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string EncodeUtf8(std::u32string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t cp : s) AppendUtf8(cp, &out);
  return out;
}

}  // namespace trainbench::core
