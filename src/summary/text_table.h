// The aligned plain-text tables of `summarize`, `compare` and `history`: a header row, then one
// row per entry; each column as wide as its widest cell, two spaces apart, right-aligned where
// the column says so (numbers), trailing spaces trimmed.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace trainbench::summary {

// columns: (header, right-aligned). Every row has one cell per column.
void PrintTextTable(std::ostream& out, const std::vector<std::pair<std::string, bool>>& columns,
                    const std::vector<std::vector<std::string>>& rows);

}  // namespace trainbench::summary
