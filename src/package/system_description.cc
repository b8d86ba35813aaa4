#include "package/system_description.h"

#include <cstdio>
#include <cstdlib>
#include <set>

#include "core/atomic_file.h"
#include "core/error.h"

namespace trainbench::package {
namespace {

std::string Text(const core::Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer() || v.is_number_unsigned()) return std::to_string(v.get<long long>());
  if (v.is_null()) return "";
  return v.dump();
}

std::string Field(const core::Json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it == obj.end() ? "" : Text(*it);
}

// The one value every log gives for a fact; kUnknown (and a note) when they differ or none
// says it.
std::string Common(const std::vector<LogFacts>& logs, std::string LogFacts::*member,
                   const std::string& field, std::vector<std::string>* notes) {
  std::set<std::string> values;
  for (const LogFacts& f : logs) values.insert(f.*member);
  values.erase("");
  if (values.empty()) return kUnknown;
  if (values.size() == 1) return *values.begin();
  std::string all;
  for (const std::string& v : values) all += (all.empty() ? "" : ", ") + v;
  if (notes) notes->push_back(field + ": the logs differ (" + all + "): " + kUnknown);
  return kUnknown;
}

}  // namespace

const std::vector<std::string>& RequiredFields() {
  static const std::vector<std::string> kFields = {
      "submitter",
      "division",
      "status",
      "system_name",
      "number_of_nodes",
      "host_processors_per_node",
      "host_processor_model_name",
      "host_processor_core_count",
      "host_processor_vcpu_count",
      "host_processor_frequency",
      "host_processor_caches",
      "host_processor_interconnect",
      "host_memory_capacity",
      "host_storage_type",
      "host_storage_capacity",
      "host_networking",
      "host_networking_topology",
      "host_memory_configuration",
      "accelerators_per_node",
      "accelerator_model_name",
      "accelerator_host_interconnect",
      "accelerator_frequency",
      "accelerator_on-chip_memories",
      "accelerator_memory_configuration",
      "accelerator_memory_capacity",
      "accelerator_interconnect",
      "accelerator_interconnect_topology",
      "cooling",
      "hw_notes",
      "framework",
      "other_software_stack",
      "operating_system",
      "sw_notes",
  };
  return kFields;
}

const std::vector<std::string>& IntegerFields() {
  static const std::vector<std::string> kFields = {"number_of_nodes", "host_processors_per_node",
                                                   "accelerators_per_node"};
  return kFields;
}

LogFacts ReadLogFacts(const core::ParsedLog& log) {
  LogFacts f;
  f.path = log.path;
  auto value = [&](const char* key) {
    const core::LogRecord* r = log.Find(key);
    return r ? r->value : core::Json();
  };
  f.division = Text(value("submission_division"));
  f.status = Text(value("submission_status"));
  core::Json prov = value("trainbench_provenance");
  f.cpu_model = Field(prov, "cpu_model");
  f.logical_cpus = Field(prov, "logical_cpus");
  f.os = Field(prov, "os");
  f.cpu_sockets = Field(prov, "cpu_sockets");
  f.cpu_cores_per_socket = Field(prov, "cpu_cores_per_socket");
  f.memory_bytes = Field(prov, "memory_bytes");
  f.libtorch_version = Field(prov, "libtorch_version");
  f.git_revision = Field(prov, "git_revision");
  f.compiler = Field(prov, "compiler");
  f.device = Field(prov, "device");
  f.world_size = Field(value("trainbench_config_effective"), "world_size");
  return f;
}

std::string AvailabilityOf(const std::string& s) {
  if (s == "onprem") return "Available on-premise";
  if (s == "cloud") return "Available cloud";
  if (s == "research") return "Research, Development, or Internal (RDI)";
  if (s == "preview") return "Preview";
  return kUnknown;
}

core::Json DescribeSystem(const DescriptionInput& in, std::vector<std::string>* notes) {
  core::Json d = core::Json::object();
  for (const std::string& k : RequiredFields()) d[k] = kUnknown;
  d["submitter"] = in.org;
  d["system_name"] = in.system;
  d["division"] = Common(in.logs, &LogFacts::division, "division", notes);
  std::string status = Common(in.logs, &LogFacts::status, "status", notes);
  d["status"] = status == kUnknown ? kUnknown : AvailabilityOf(status);
  // One process per run: one node. Several ranks may span machines, which the logs do not say.
  if (Common(in.logs, &LogFacts::world_size, "number_of_nodes", notes) == "1") {
    d["number_of_nodes"] = "1";
  }
  d["host_processor_model_name"] =
      Common(in.logs, &LogFacts::cpu_model, "host_processor_model_name", notes);
  d["host_processor_vcpu_count"] =
      Common(in.logs, &LogFacts::logical_cpus, "host_processor_vcpu_count", notes);
  // Sockets, cores and memory: recorded by trainbench since 2026-12-08 (older logs: unknown).
  const auto recorded = [&](std::string LogFacts::*field, const char* name) {
    bool all = true;
    for (const LogFacts& f : in.logs) all = all && !(f.*field).empty();
    return all ? Common(in.logs, field, name, notes) : kUnknown;
  };
  d["host_processors_per_node"] = recorded(&LogFacts::cpu_sockets, "host_processors_per_node");
  d["host_processor_core_count"] =
      recorded(&LogFacts::cpu_cores_per_socket, "host_processor_core_count");
  const std::string mem = recorded(&LogFacts::memory_bytes, "host_memory_capacity");
  if (mem != kUnknown) {
    char gb[64];
    std::snprintf(gb, sizeof(gb), "%.1f GB (Linux MemTotal)",
                  std::strtod(mem.c_str(), nullptr) / 1e9);
    d["host_memory_capacity"] = gb;
  }
  if (Common(in.logs, &LogFacts::device, "accelerators_per_node", notes) == "cpu") {
    d["accelerators_per_node"] = "0";
    for (const char* k : {"accelerator_model_name", "accelerator_host_interconnect",
                          "accelerator_frequency", "accelerator_on-chip_memories",
                          "accelerator_memory_configuration", "accelerator_memory_capacity",
                          "accelerator_interconnect", "accelerator_interconnect_topology"}) {
      d[k] = "N/A";
    }
  }
  std::string torch = Common(in.logs, &LogFacts::libtorch_version, "framework", notes);
  if (torch != kUnknown) d["framework"] = "LibTorch " + torch;
  d["operating_system"] = Common(in.logs, &LogFacts::os, "operating_system", notes);
  // The software around the framework: trainbench's build(s) and compiler(s), all of them.
  std::set<std::string> revisions, compilers;
  for (const LogFacts& f : in.logs) {
    if (!f.git_revision.empty()) revisions.insert(f.git_revision);
    if (!f.compiler.empty()) compilers.insert(f.compiler);
  }
  std::string stack;
  for (const std::string& r : revisions) stack += (stack.empty() ? "trainbench " : ", ") + r;
  for (const std::string& c : compilers) stack += (stack.empty() ? "" : ", ") + c;
  if (!stack.empty()) d["other_software_stack"] = stack;
  // Notes are free text: none unless the person adds them.
  d["hw_notes"] = "";
  d["sw_notes"] = "";
  return d;
}

void ApplyOverrides(const std::string& path, core::Json* description) {
  std::string text = core::ReadFile(path);
  core::Json j;
  try {
    j = core::ParseJson(text);
  } catch (const std::exception& e) {
    throw core::FileError(path, 0, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw core::FileError(path, 0, "expected a JSON object of fields");
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it->is_string()) {
      throw core::FileError(path, 0,
                            "field \"" + it.key() +
                                "\": the value must be a string (the official checker joins "
                                "the fields as text), got " +
                                it->dump());
    }
    (*description)[it.key()] = *it;
  }
}

std::vector<std::string> UnknownFields(const core::Json& description) {
  std::vector<std::string> out;
  for (const std::string& k : RequiredFields()) {
    auto it = description.find(k);
    if (it == description.end() || (it->is_string() && it->get<std::string>() == kUnknown)) {
      out.push_back(k);
    }
  }
  return out;
}

}  // namespace trainbench::package
