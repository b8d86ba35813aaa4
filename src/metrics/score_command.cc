#include "metrics/score_command.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/error.h"
#include "metrics/unicode.h"

namespace trainbench::metrics {

std::vector<std::u32string> ReadUtf8Lines(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw core::FileError(path, 0, "is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::FileError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw core::FileError(path, 0, "read error");
  std::vector<std::u32string> lines;
  std::size_t pos = 0;
  long line_no = 0;
  while (pos < bytes.size()) {
    std::size_t end = bytes.find('\n', pos);
    if (end == std::string::npos) end = bytes.size();
    std::string_view line(bytes.data() + pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++line_no;
    std::u32string decoded;
    std::size_t bad = 0;
    if (!DecodeUtf8(line, &decoded, &bad)) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "0x%02X", static_cast<unsigned char>(line[bad]));
      throw core::FileError(
          path, line_no,
          "invalid UTF-8 at byte " + std::to_string(bad + 1) + " of the line (" + hex + ")");
    }
    lines.push_back(std::move(decoded));
    pos = end + 1;
  }
  return lines;
}

core::Json BleuScoreToJson(const BleuScore& s, const BleuOptions& o, long long segments) {
  core::Json j;
  j["schema_version"] = kScoreBleuSchemaVersion;
  j["name"] = "BLEU";
  j["score"] = s.score;
  j["precisions"] = s.precisions;
  j["bp"] = s.bp;
  j["ratio"] = s.ratio;
  j["hyp_len"] = s.stats.hyp_len;
  j["ref_len"] = s.stats.ref_len;
  j["counts"] = s.stats.matches;
  j["totals"] = s.stats.totals;
  j["segments"] = segments;
  j["tokenize"] = BleuTokenizeName(o.tokenize);
  j["lowercase"] = o.lowercase;
  j["signature"] = BleuSignature(o);
  j["verbose_score"] = FormatBleuLine(s);
  return j;
}

int RunScoreBleuCommand(const ScoreBleuOptions& o, std::ostream& out) {
  BleuOptions bo;
  bo.tokenize = ParseBleuTokenize(o.tokenize);
  bo.lowercase = o.lowercase;
  const std::vector<std::u32string> refs = ReadUtf8Lines(o.ref_file);
  const std::vector<std::u32string> hyps = ReadUtf8Lines(o.hyp_file);
  if (refs.size() != hyps.size()) {
    std::ostringstream os;
    os << "the reference and the hypothesis have different line counts: " << o.ref_file << " has "
       << refs.size() << " lines, " << o.hyp_file << " has " << hyps.size();
    throw core::Error(os.str());
  }
  CorpusBleu corpus(bo);
  for (std::size_t i = 0; i < refs.size(); ++i) corpus.Add(hyps[i], refs[i]);
  const BleuScore score = corpus.Score();
  if (o.json) {
    out << BleuScoreToJson(score, bo, corpus.segments()).dump(2) << "\n";
  } else {
    out << FormatBleuLine(score) << "\n";
  }
  return 0;
}

}  // namespace trainbench::metrics
