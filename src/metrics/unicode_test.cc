// Strict UTF-8, the General Category tables and the Python string operations BLEU relies on
// (expected values are what Python 3's str methods and unicodedata answer).
#include "metrics/unicode.h"

#include <gtest/gtest.h>

#include <string>

namespace trainbench::metrics {
namespace {

std::u32string Decode(const std::string& s) {
  std::u32string out;
  std::size_t bad = 0;
  EXPECT_TRUE(DecodeUtf8(s, &out, &bad)) << "bad at " << bad;
  return out;
}

std::size_t BadOffset(const std::string& s) {
  std::u32string out;
  std::size_t bad = 12345;
  EXPECT_FALSE(DecodeUtf8(s, &out, &bad)) << "accepted: " << s;
  return bad;
}

TEST(BleuUnicodeTest, DecodesAndEncodesUtf8) {
  EXPECT_EQ(Decode("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"),
            (std::u32string{U'a', 0xE9, 0x20AC, 0x1F600}));
  EXPECT_EQ(EncodeUtf8(std::u32string{U'a', 0xE9, 0x20AC, 0x1F600}),
            "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  EXPECT_EQ(Decode("\xEF\xBB\xBFx"), (std::u32string{0xFEFF, U'x'}));  // BOM kept, as Python
  EXPECT_EQ(Decode("\xF4\x8F\xBF\xBF"), (std::u32string{0x10FFFF}));
  EXPECT_EQ(Decode(std::string("a\0b", 3)), (std::u32string{U'a', 0, U'b'}));
}

TEST(BleuUnicodeTest, RejectsInvalidUtf8WithItsOffset) {
  EXPECT_EQ(BadOffset("ab\xFF"), 2u);            // never valid
  EXPECT_EQ(BadOffset("\x80"), 0u);              // stray continuation
  EXPECT_EQ(BadOffset("x\xC3\x28"), 1u);         // bad continuation
  EXPECT_EQ(BadOffset("\xC0\xAF"), 0u);          // overlong "/"
  EXPECT_EQ(BadOffset("\xE0\x80\xAF"), 0u);      // overlong 3 bytes
  EXPECT_EQ(BadOffset("\xF0\x80\x80\xAF"), 0u);  // overlong 4 bytes
  EXPECT_EQ(BadOffset("ok\xED\xA0\x80"), 2u);    // surrogate U+D800
  EXPECT_EQ(BadOffset("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(BadOffset("abc\xE2\x82"), 3u);       // truncated at the end
}

TEST(BleuUnicodeTest, GeneralCategories) {
  for (char32_t c : {U'!', U'%', U'\\', U'-', U'«', U'»', U'¿', U'¡', U'—', U'…', U'、'}) {
    EXPECT_TRUE(IsPunctuation(c)) << static_cast<unsigned>(c);
    EXPECT_FALSE(IsSymbol(c)) << static_cast<unsigned>(c);
  }
  for (char32_t c : {U'$', U'+', U'^', U'€', U'£', U'©', U'°', char32_t{0x1F600}}) {
    EXPECT_TRUE(IsSymbol(c)) << static_cast<unsigned>(c);
    EXPECT_FALSE(IsPunctuation(c)) << static_cast<unsigned>(c);
  }
  for (char32_t c : {U'a', U'Z', U'é', U' ', U'7', char32_t{0x4E00}}) {
    EXPECT_FALSE(IsPunctuation(c)) << static_cast<unsigned>(c);
    EXPECT_FALSE(IsSymbol(c)) << static_cast<unsigned>(c);
  }
  EXPECT_TRUE(IsNumber(U'7'));
  EXPECT_TRUE(IsNumber(U'²'));  // No
  EXPECT_TRUE(IsNumber(U'Ⅻ'));  // Nl
  EXPECT_FALSE(IsNumber(U'x'));
  EXPECT_TRUE(IsDecimalDigit(U'7'));
  EXPECT_TRUE(IsDecimalDigit(U'٣'));  // ARABIC-INDIC DIGIT THREE, Nd
  EXPECT_FALSE(IsDecimalDigit(U'²'));
  EXPECT_FALSE(IsDecimalDigit(U'Ⅻ'));
}

TEST(BleuUnicodeTest, PythonWhitespace) {
  for (char32_t c : {U' ', U'\t', U'\n', U'\r', char32_t{0x0B}, char32_t{0x0C}, char32_t{0x1C},
                     char32_t{0x1F}, char32_t{0x85}, char32_t{0xA0}, char32_t{0x2009},
                     char32_t{0x2028}, char32_t{0x202F}, char32_t{0x3000}}) {
    EXPECT_TRUE(IsPythonSpace(c)) << static_cast<unsigned>(c);
  }
  for (char32_t c : {U'a', char32_t{0x200B}, char32_t{0xFEFF}, char32_t{0x180E}, char32_t{0}}) {
    EXPECT_FALSE(IsPythonSpace(c)) << static_cast<unsigned>(c);
  }
  EXPECT_EQ(PythonRstrip(U"ab \u00a0\t"), U"ab");
  EXPECT_EQ(PythonRstrip(U" \u3000"), U"");
}

TEST(BleuUnicodeTest, PythonLower) {
  EXPECT_EQ(PythonLower(U"ÉCOLE Straße ÀÖ"), U"école straße àö");
  EXPECT_EQ(PythonLower(U"İ"), (std::u32string{U'i', 0x307}));  // SpecialCasing
  // Final sigma (what CPython's str.lower() does): at a word end ς, elsewhere σ; case-ignorable
  // characters (apostrophe, period, combining marks) are looked through.
  EXPECT_EQ(PythonLower(U"ΟΔΟΣ ΣΑ Σ"), U"οδος σα σ");
  EXPECT_EQ(PythonLower(U"ΑΣ'Β a.Σ AΣ\u0301"), U"ασ'β a.ς aς\u0301");
  EXPECT_EQ(PythonLower(U"ДОМ Ǆ"), U"дом ǆ");
}

TEST(BleuUnicodeTest, TablesAreFromAKnownVersion) { EXPECT_STREQ(UnicodeVersion(), "15.0.0"); }

}  // namespace
}  // namespace trainbench::metrics
