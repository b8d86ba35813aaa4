#include "summary/text_table.h"

#include <algorithm>

namespace trainbench::summary {

void PrintTextTable(std::ostream& out, const std::vector<std::pair<std::string, bool>>& columns,
                    const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    width[c] = columns[c].first.size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  auto print_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) line += "  ";
      const std::string pad(width[c] - cells[c].size(), ' ');
      line += columns[c].second ? pad + cells[c] : cells[c] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  std::vector<std::string> header;
  header.reserve(columns.size());
  for (const auto& c : columns) header.push_back(c.first);
  print_row(header);
  for (const auto& row : rows) print_row(row);
}

}  // namespace trainbench::summary
