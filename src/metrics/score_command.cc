#include "metrics/score_command.h"

#include <cstdio>
#include <cstring>
#include <sstream>
#include <string_view>

#include "core/error.h"
#include "core/regular_file.h"
#include "metrics/unicode.h"

namespace trainbench::metrics {

std::vector<std::u32string> ReadUtf8Lines(const std::string& path, std::size_t max_line_bytes) {
  // Regular files and pipes (`<(decoder ...)`, /dev/stdin), bounded: /dev/zero ran out of
  // memory in one endless line before; a device is refused, a line longer than max_line_bytes
  // or more than kMaxTextBytes in all is an error.
  constexpr std::size_t kMaxTextBytes = std::size_t{1} << 30;
  std::string why;
  const core::UniqueFile f = core::OpenRegularFile(path, &why, /*allow_pipe=*/true);
  if (!f) throw core::FileError(path, 0, "cannot open: " + why);
  std::vector<std::u32string> lines;
  std::string line;
  long line_no = 0;
  const auto finish_line = [&]() {
    ++line_no;
    std::string_view view(line);
    if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
    std::u32string decoded;
    std::size_t bad = 0;
    if (!DecodeUtf8(view, &decoded, &bad)) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "0x%02X", static_cast<unsigned char>(view[bad]));
      throw core::FileError(
          path, line_no,
          "invalid UTF-8 at byte " + std::to_string(bad + 1) + " of the line (" + hex + ")");
    }
    lines.push_back(std::move(decoded));
    line.clear();
  };
  std::vector<char> buf(1 << 16);
  std::size_t n = 0;
  std::size_t total = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), f.get())) > 0) {
    total += n;
    if (total > kMaxTextBytes) {
      throw core::FileError(
          path, line_no + 1,
          "more than " + std::to_string(kMaxTextBytes) + " bytes of text (a test set is a few MB)");
    }
    std::size_t pos = 0;
    while (pos < n) {
      const void* nl = std::memchr(buf.data() + pos, '\n', n - pos);
      const std::size_t end = nl ? static_cast<const char*>(nl) - buf.data() : n;
      if (line.size() + (end - pos) > max_line_bytes) {
        throw core::FileError(
            path, line_no + 1,
            "line longer than " + std::to_string(max_line_bytes) +
                " bytes (a line is one segment: is this a line-aligned text file?)");
      }
      line.append(buf.data() + pos, end - pos);
      if (nl == nullptr) break;
      finish_line();
      pos = end + 1;
    }
  }
  if (std::ferror(f.get())) throw core::FileError(path, 0, "read error");
  if (!line.empty()) finish_line();  // a last line without '\n'
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
