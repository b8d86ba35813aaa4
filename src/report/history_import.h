// Putting runs into the results history: the rows history_db.h stores, made from the runs of
// results folders (results_loader.h). `report` imports what it reads; `summarize` calls
// RecordHistory after it has printed its summary.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/benchmark_def.h"
#include "report/history_db.h"
#include "report/results_loader.h"

namespace trainbench::report {

// The history rows for `results`: systems as the folder layout names them (not the
// "<folder>:<system>" names a multi-folder report shows) and absolute log paths.
std::vector<HistoryRun> ToHistoryRuns(const LoadedResults& results);

// Imports `results` into the database at `db_path` ("" for DefaultHistoryPath()) in one
// transaction. Throws core::Error naming the database when it cannot.
ImportCounts ImportIntoHistory(const LoadedResults& results, const std::string& db_path,
                               int64_t now_ms);

// Milliseconds since the Unix epoch, now.
int64_t NowMs();

// "history: 3 new runs, 2 already known (PATH)"; refused runs add ", 1 refused (<path>: <why>)".
std::string DescribeImport(const ImportCounts& counts, const std::string& db_path);

// For `summarize`: loads `dirs` and imports their runs; reports one line to `err`. A failure
// (a folder or the database) is a warning on `err`, never an exception: the summary is the
// command's result, the history a record of it.
void RecordHistory(const std::vector<std::string>& dirs, const std::string& db_path,
                   std::ostream& err);

}  // namespace trainbench::report
