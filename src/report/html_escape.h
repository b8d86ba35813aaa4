// Escaping for the HTML report: every string that comes from a log goes through one of these
// before it reaches the page, so a log whose values hold HTML or script shows them as text.
#pragma once

#include <string>

#include "core/json.h"

namespace trainbench::report {

// Text for an HTML element body or a quoted attribute value (also inside inline SVG):
// & < > " ' become character references. Bytes that are not valid UTF-8 become U+FFFD.
std::string EscapeHtml(const std::string& text);

// A JSON document to place inside <script type="application/json">: serialized with `<`, `>`
// and `&` written as \u003c, \u003e, \u0026 (so neither "</script" nor "<!--" can appear) and
// U+2028/U+2029 escaped; JSON.parse gives back the same value.
std::string JsonForScript(const core::Json& value);

}  // namespace trainbench::report
