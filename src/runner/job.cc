#include "runner/job.h"

namespace trainbench::runner {

using core::Json;

std::string JobFingerprint(const JobSpec& job) {
  // The keys and their order are what launchers of other builds compare against: keep them.
  Json j = {{"benchmark", job.benchmark},   {"scale", job.scale},
            {"division", job.division},     {"runs", job.runs},
            {"config", job.config},         {"max_steps", job.max_steps},
            {"max_epochs", job.max_epochs}, {"world_size", job.world_size}};
  return j.dump();
}

std::string FirstDifference(const std::string& a, const std::string& b) {
  Json ja = Json::parse(a), jb = Json::parse(b);
  for (auto it = ja.begin(); it != ja.end(); ++it) {
    if (!jb.contains(it.key()) || jb[it.key()] != it.value()) {
      if (it.value().is_object() && jb.contains(it.key()) && jb[it.key()].is_object()) {
        for (auto k = it.value().begin(); k != it.value().end(); ++k) {
          if (!jb[it.key()].contains(k.key()) || jb[it.key()][k.key()] != k.value()) {
            return it.key() + "." + k.key() +
                   " (rank 0: " + jb[it.key()].value(k.key(), Json()).dump() +
                   ", here: " + k.value().dump() + ")";
          }
        }
      }
      return it.key() + " (rank 0: " + jb.value(it.key(), Json()).dump() +
             ", here: " + it.value().dump() + ")";
    }
  }
  return "(no single key)";
}

}  // namespace trainbench::runner
