#include "report/html_escape.h"

#include <gtest/gtest.h>

namespace trainbench::report {
namespace {

TEST(EscapeHtml, EscapesMarkupCharacters) {
  EXPECT_EQ(EscapeHtml("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
}

TEST(EscapeHtml, KeepsValidUtf8AndReplacesInvalidBytes) {
  EXPECT_EQ(EscapeHtml("caf\xC3\xA9 \xE2\x9C\x93"), "caf\xC3\xA9 \xE2\x9C\x93");
  EXPECT_EQ(EscapeHtml("a\xFFz"), "a\xEF\xBF\xBDz");
  EXPECT_EQ(EscapeHtml("\xC3"), "\xEF\xBF\xBD");  // truncated sequence
  EXPECT_EQ(EscapeHtml("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(EscapeHtml(std::string("a\0b", 3)),
            "a\xEF\xBF\xBD"
            "b");
}

TEST(JsonForScript, NoClosingTagOrMarkupSurvives) {
  core::Json j = {{"name", "</script><script>alert(1)</script>"}, {"c", "<!-- & -->"}};
  const std::string s = JsonForScript(j);
  EXPECT_EQ(s.find('<'), std::string::npos);
  EXPECT_EQ(s.find('>'), std::string::npos);
  EXPECT_EQ(s.find('&'), std::string::npos);
  EXPECT_EQ(core::Json::parse(s), j);  // the same value comes back
}

TEST(JsonForScript, EscapesLineSeparatorsAndInvalidUtf8) {
  core::Json j = {{"ls",
                   "a\xE2\x80\xA8"
                   "b"},
                  {"bad", "x\xFFy"}};
  const std::string s = JsonForScript(j);
  EXPECT_NE(s.find("\\u2028"), std::string::npos);
  EXPECT_NE(s.find("\\ufffd"), std::string::npos);
}

}  // namespace
}  // namespace trainbench::report
