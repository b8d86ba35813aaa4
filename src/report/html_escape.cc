#include "report/html_escape.h"

namespace trainbench::report {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid.
size_t Utf8SequenceLength(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = 0;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  }
  // Overlong 3/4-byte forms, surrogates and code points above U+10FFFF.
  if (c == 0xE0 && b(i + 1) < 0xA0) return 0;
  if (c == 0xED && b(i + 1) > 0x9F) return 0;
  if (c == 0xF0 && b(i + 1) < 0x90) return 0;
  if (c == 0xF4 && b(i + 1) > 0x8F) return 0;
  return n;
}

}  // namespace

std::string EscapeHtml(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default: {
        const size_t n = Utf8SequenceLength(text, i);
        if (n == 0) {
          out += "\xEF\xBF\xBD";  // U+FFFD
          ++i;
          continue;
        }
        const unsigned char u = static_cast<unsigned char>(c);
        if (n == 1 && u < 0x20 && c != '\n' && c != '\t' && c != '\r') {
          out += "\xEF\xBF\xBD";  // control characters are not allowed in HTML text
        } else {
          out.append(text, i, n);
        }
        i += n;
        continue;
      }
    }
    ++i;
  }
  return out;
}

std::string JsonForScript(const core::Json& value) {
  // dump() with ensure_ascii escapes every non-ASCII character (so U+2028/2029 too) and
  // error_handler::replace turns invalid UTF-8 into U+FFFD instead of throwing.
  const std::string json = value.dump(-1, ' ', true, core::Json::error_handler_t::replace);
  std::string out;
  out.reserve(json.size() + 16);
  for (char c : json) {
    // Outside strings JSON has none of these characters, so escaping them everywhere is safe.
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace trainbench::report
