// The MLPerf system description (<org>/systems/<system>.json) of a package, filled from what
// trainbench's result logs record (trainbench_provenance, trainbench_config_effective and the
// submission_* keys) and from a file of the fields only a person knows.
//
// Every field the official system-description checker requires (kRequiredFields, the 33 of
// mlcommons/logging's system_desc_checker.py) is present. Values are strings, as the official
// checker joins some of them into a CSV line. A field the logs do not tell is kUnknown, never
// guessed; accelerator fields of a CPU-only system are "N/A" (there is none).
#pragma once

#include <string>
#include <vector>

#include "core/json.h"
#include "core/log_reader.h"

namespace trainbench::package {

inline constexpr const char* kUnknown = "unknown";

// The fields system_desc_checker.py requires, in its order.
const std::vector<std::string>& RequiredFields();

// Fields the official result summarizer reads as integers (int(...)): it stops with a
// ValueError on "unknown".
const std::vector<std::string>& IntegerFields();

// What one log says about the machine that ran it ("" when the log does not say).
struct LogFacts {
  std::string path;
  std::string division, status;  // submission_division, submission_status
  std::string cpu_model, logical_cpus, os, libtorch_version, git_revision, compiler, device;
  // trainbench_provenance's cpu_sockets, cpu_cores_per_socket, memory_bytes ("" in logs of
  // trainbench before 2026-12-08, which did not record them).
  std::string cpu_sockets, cpu_cores_per_socket, memory_bytes;
  std::string world_size;  // trainbench_config_effective.world_size
};
LogFacts ReadLogFacts(const core::ParsedLog& log);

// submission_status ("onprem", "cloud", "research", "preview") -> the availability the
// official 4.x checker accepts ("Available on-premise", ...); kUnknown for anything else.
std::string AvailabilityOf(const std::string& submission_status);

struct DescriptionInput {
  std::string org;             // submitter
  std::string system;          // system_name
  std::vector<LogFacts> logs;  // every log of the system (at least one)
};

// The description: RequiredFields() in order, then nothing else. A fact that differs between
// logs is kUnknown and named in *notes ("host_processor_model_name: the logs differ: ...").
core::Json DescribeSystem(const DescriptionInput& in, std::vector<std::string>* notes);

// Applies the --system-json file `path`: a JSON object whose keys replace (or add to) the
// description's. Throws core::Error naming the file for unreadable or malformed JSON, a value
// that is not an object, or a value that is not a string (naming the key).
void ApplyOverrides(const std::string& path, core::Json* description);

// The required fields whose value is kUnknown, in RequiredFields() order.
std::vector<std::string> UnknownFields(const core::Json& description);

}  // namespace trainbench::package
