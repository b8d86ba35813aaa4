// Small string helpers shared by the modules (header-only, no dependencies).
#pragma once

#include <string_view>

namespace trainbench::core {

inline bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace trainbench::core
