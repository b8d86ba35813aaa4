// Strict UTF-8 (RFC 3629): validation and decoding that reject what the standard forbids
// (stray continuation bytes, truncated sequences, overlong encodings, UTF-16 surrogates
// U+D800..U+DFFF, code points above U+10FFFF, the bytes 0xC0, 0xC1, 0xF5..0xFF), reporting
// the byte offset of the first bad sequence. Pure functions, thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace trainbench::core {

struct Utf8Error {
  size_t offset = 0;   // byte offset (0-based) of the first byte of the bad sequence
  std::string reason;  // e.g. "overlong encoding", "surrogate U+D800"
  // "invalid UTF-8 at byte <offset>: <reason>"
  std::string Message() const;
};

// Decodes the code point starting at s[*pos] and advances *pos past it. Returns nullopt
// (and fills *error, *pos unchanged) when the bytes there are not valid UTF-8.
std::optional<char32_t> DecodeUtf8At(std::string_view s, size_t* pos, Utf8Error* error);

// The first invalid sequence of s, or nullopt when s is valid UTF-8.
std::optional<Utf8Error> FindInvalidUtf8(std::string_view s);
inline bool IsValidUtf8(std::string_view s) { return !FindInvalidUtf8(s).has_value(); }

// Decodes all of s; throws core::Error with Utf8Error::Message() when it is not valid UTF-8.
std::u32string DecodeUtf8(std::string_view s);

// Appends the UTF-8 encoding of cp (a scalar value: <= U+10FFFF, not a surrogate; TB_CHECK).
void AppendUtf8(char32_t cp, std::string* out);
std::string EncodeUtf8(std::u32string_view s);

}  // namespace trainbench::core
