#include "core/utf8.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace trainbench::core {
namespace {

TEST(Utf8, AcceptsValidText) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ASCII"));
  EXPECT_TRUE(IsValidUtf8("espa\xC3\xB1ol"));            // U+00F1
  EXPECT_TRUE(IsValidUtf8("\xE2\x82\xAC"));              // U+20AC
  EXPECT_TRUE(IsValidUtf8("\xF0\x9F\x98\x80"));          // U+1F600
  EXPECT_TRUE(IsValidUtf8("\xF4\x8F\xBF\xBF"));          // U+10FFFF, the last
  EXPECT_TRUE(IsValidUtf8("\xED\x9F\xBF\xEE\x80\x80"));  // U+D7FF, U+E000 around the surrogates
  EXPECT_EQ(DecodeUtf8("a\xC3\xB1\xE2\x82\xAC\xF0\x9F\x98\x80"),
            std::u32string(U"a\u00F1\u20AC\U0001F600"));
}

struct Bad {
  const char* bytes;
  size_t offset;
  const char* reason;
};

TEST(Utf8, RejectsEachInvalidClassWithItsOffset) {
  const Bad cases[] = {
      {"ab\x80", 2, "unexpected continuation byte 0x80"},
      {"x\xC0\xAF", 1, "overlong encoding (lead byte 0xC0)"},
      {"\xC1\xBF", 0, "overlong encoding (lead byte 0xC1)"},
      {"xy\xE0\x80\xAF", 2, "overlong encoding of U+002F"},
      {"\xF0\x82\x82\xAC", 0, "overlong encoding of U+20AC"},
      {"ok \xED\xA0\x80", 3, "surrogate U+D800"},
      {"\xED\xBF\xBF", 0, "surrogate U+DFFF"},
      {"\xF4\x90\x80\x80", 0, "code point U+110000 above U+10FFFF"},
      {"\xF5\x80\x80\x80", 0, "invalid byte 0xF5"},
      {"\xFF", 0, "invalid byte 0xFF"},
      {"abc\xE2\x82", 3, "truncated sequence (3-byte sequence, 2 bytes left)"},
      {"\xC3(", 0, "truncated sequence (byte 0x28 where a continuation byte belongs)"},
  };
  for (const Bad& b : cases) {
    const auto e = FindInvalidUtf8(b.bytes);
    ASSERT_TRUE(e.has_value()) << b.reason;
    EXPECT_EQ(e->offset, b.offset) << b.reason;
    EXPECT_EQ(e->reason, b.reason);
  }
  EXPECT_EQ(FindInvalidUtf8("ab\x80")->Message(),
            "invalid UTF-8 at byte 2: unexpected continuation byte 0x80");
}

TEST(Utf8, DecodeThrowsAndEncodeRoundTrips) {
  EXPECT_THROW(DecodeUtf8("a\xED\xA0\x80"), core::Error);
  const std::u32string s = U"Ma\u00F1ana \u20AC \U0001F600";
  EXPECT_EQ(DecodeUtf8(EncodeUtf8(s)), s);
  size_t pos = 1;
  Utf8Error e;
  EXPECT_EQ(DecodeUtf8At("a\xC3\xB1", &pos, &e), std::optional<char32_t>(0xF1));
  EXPECT_EQ(pos, 3u);
}

}  // namespace
}  // namespace trainbench::core
