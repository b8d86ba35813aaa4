#include "rcp/rcp_log.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/log_reader.h"
#include "rcp/rcp.h"

namespace trainbench::rcp {

namespace {

constexpr const char* kToken = ":::MLLOG ";

bool Contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

// Python's str.strip() for the whitespace a log line can hold.
std::string Strip(const std::string& s) {
  const char* ws = " \t\n\r\v\f\x1c\x1d\x1e\x1f";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// Lines as Python's text mode splits them (universal newlines: \n, \r\n, \r).
std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string cur;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n' || c == '\r') {
      lines.push_back(cur);
      cur.clear();
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

const core::Json& Field(const core::Json& j, const char* key, const std::string& path, int line_no,
                        const char* what) {
  if (!j.is_object() || !j.contains(key)) {
    throw core::FileError(
        path, line_no,
        std::string(what) + " has no \"" + key + "\" (the official RCP checker stops here)");
  }
  return j.at(key);
}

double Number(const core::Json& j, const std::string& path, int line_no, const char* what) {
  if (!j.is_number()) {
    throw core::FileError(path, line_no, std::string(what) + " is not a number");
  }
  return j.get<double>();
}

}  // namespace

double Round3(double x) {
  // glibc's printf rounds the exact binary value half-to-even, as Python's round(x, 3) does.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", x);
  return std::strtod(buf, nullptr);
}

LogConvergence ReadConvergence(const std::string& text, const std::string& path,
                               const ReadOptions& o) {
  static const std::set<std::string> kSamplesCountBenchmarks = {
      "llama2_70b_lora", "flux1",           "llama31_405b",    "llama31_8b",
      "gpt_oss_20b",     "deepseekv3_671b", "qwen35_397b_grpo"};
  LogConvergence out;
  out.path = path;
  bool not_converged = true;
  bool use_train_samples = o.bert_train_samples;
  std::optional<double> conv_epoch;
  std::map<double, std::map<std::string, double>> sd_evals;  // stable_diffusion: step -> metric
  std::vector<std::pair<double, double>> epoch_samples;      // (epoch_num, samples_count)
  const std::vector<std::string> lines = SplitLines(text);
  for (size_t n = 0; n < lines.size(); ++n) {
    const int line_no = static_cast<int>(n + 1);
    const std::string& raw = lines[n];
    const size_t at = raw.rfind(kToken);
    if (at == std::string::npos) continue;
    const std::string str = Strip(raw.substr(at)).substr(std::string(kToken).size());
    core::Json j;
    auto parse = [&]() -> const core::Json& {
      if (j.is_null()) {
        try {
          j = core::ParseJson(str);
        } catch (const core::JsonError& e) {
          throw core::FileError(path, line_no, std::string("not JSON: ") + e.what());
        }
      }
      return j;
    };
    // trainbench's own keys, read by key (they do not take part in the test).
    if (Contains(str, "\"trainbench_") || Contains(str, "submission_platform") ||
        Contains(str, "opt_") || Contains(str, "epoch_stop")) {
      const core::Json& r = parse();
      const std::string key = r.is_object() && r.contains("key") && r["key"].is_string()
                                  ? r["key"].get<std::string>()
                                  : "";
      const core::Json value = r.is_object() && r.contains("value") ? r["value"] : core::Json();
      if (key == "trainbench_benchmark" && value.is_string()) {
        out.trainbench_benchmark = value.get<std::string>();
      } else if (key == "trainbench_scale" && value.is_string()) {
        out.trainbench_scale = value.get<std::string>();
      } else if (key == "submission_platform" && value.is_string()) {
        out.platform = value.get<std::string>();
      } else if (key == "opt_name") {
        out.hyperparams["optimizer"] = value;
      } else if (key.rfind("opt_", 0) == 0 || Contains(key, "_opt_")) {
        out.hyperparams[key] = value;
      } else if (key == "epoch_stop") {
        const auto e = core::NumberField(r["metadata"], "epoch_num");
        const auto s = core::NumberField(r["metadata"], "samples_count");
        if (e && s) epoch_samples.emplace_back(*e, *s);
      }
    }

    if (Contains(str, "global_batch_size")) {
      out.bs = Field(parse(), "value", path, line_no, "the global_batch_size line");
    }
    if (Contains(str, "submission_benchmark")) {
      const core::Json& v = Field(parse(), "value", path, line_no, "the submission_benchmark line");
      out.benchmark = v.is_string() ? v.get<std::string>() : core::PythonJsonDumps(v);
      if (*out.benchmark != "bert" && use_train_samples) use_train_samples = false;
    }
    const bool eval_line = Contains(str, "eval_error") || Contains(str, "eval_accuracy");
    const std::string bm = out.benchmark.value_or("");
    if (bm == "stable_diffusion" && eval_line) {
      const core::Json& md = Field(parse(), "metadata", path, line_no, "the eval line");
      const char* unit = o.ruleset == "3.1.0" ? "step_num" : "samples_count";
      const double step =
          Number(Field(md, unit, path, line_no, "the eval line's metadata"), path, line_no, unit);
      const core::Json& metric = Field(md, "metric", path, line_no, "the eval line's metadata");
      sd_evals[step][metric.is_string() ? metric.get<std::string>() : metric.dump()] =
          Number(Field(j, "value", path, line_no, "the eval line"), path, line_no, "value");
    } else if (kSamplesCountBenchmarks.count(bm) && eval_line) {
      const core::Json& md = Field(parse(), "metadata", path, line_no, "the eval line");
      conv_epoch = Number(Field(md, "samples_count", path, line_no, "the eval line's metadata"),
                          path, line_no, "samples_count");
    } else if (!use_train_samples && eval_line) {
      const core::Json& md = Field(parse(), "metadata", path, line_no, "the eval line");
      conv_epoch = Round3(Number(Field(md, "epoch_num", path, line_no, "the eval line's metadata"),
                                 path, line_no, "epoch_num"));
    } else if (use_train_samples && Contains(str, "train_samples")) {
      conv_epoch = Number(Field(parse(), "value", path, line_no, "the train_samples line"), path,
                          line_no, "train_samples");
    }

    if (Contains(str, "run_stop")) {
      const core::Json& r = parse();
      if (r.is_object() && r.contains("key") && r["key"] == "run_stop") {
        const core::Json& md = Field(r, "metadata", path, line_no, "the run_stop line");
        const core::Json& status = Field(md, "status", path, line_no, "run_stop's metadata");
        if (status == "success") {
          not_converged = false;
          if (bm == "stable_diffusion") {
            std::optional<double> first;
            for (const auto& [step, metrics] : sd_evals) {
              auto fid = metrics.find("FID"), clip = metrics.find("CLIP");
              if (fid == metrics.end() || clip == metrics.end()) {
                throw core::FileError(path, line_no,
                                      "an eval step lacks FID or CLIP (the official RCP "
                                      "checker stops here)");
              }
              if (fid->second <= 90.0 && clip->second >= 0.15 && !first) first = step;
            }
            if (!first) {
              throw core::FileError(path, line_no,
                                    "no eval step passes FID <= 90 and CLIP >= 0.15");
            }
            conv_epoch = first;
          }
          if (!conv_epoch) {
            throw core::FileError(path, line_no,
                                  "run_stop success before any eval line (the official RCP "
                                  "checker stops here)");
          }
          out.epochs = *conv_epoch;
        } else {
          not_converged = true;
          out.epochs = kNotConverged;
        }
      }
    }
  }
  out.converged = !not_converged;
  if (!out.converged) out.epochs = kNotConverged;
  if (out.converged) {
    for (const auto& [e, s] : epoch_samples) {
      if (e <= out.epochs) out.samples += s;
    }
  }
  return out;
}

LogConvergence ReadConvergenceFile(const std::string& path, const ReadOptions& o) {
  const std::string reason = core::NotRegularFileReason(path);
  if (!reason.empty()) throw core::FileError(path, 0, reason);
  return ReadConvergence(core::ReadFile(path), path, o);
}

}  // namespace trainbench::rcp
