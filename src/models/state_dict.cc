#include "models/state_dict.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/sha256.h"
#include "core/strings.h"

namespace trainbench::models {
namespace {

std::string ShapeString(const torch::Tensor& t) {
  std::ostringstream os;
  os << "[";
  for (int64_t i = 0; i < t.dim(); ++i) os << (i ? ", " : "") << t.size(i);
  os << "]";
  return os.str();
}

using core::EndsWith;

// The first line of a c10::Error's message (the rest is a C++ backtrace).
std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

std::map<std::string, torch::Tensor> ReadTensorDict(const std::string& path,
                                                    const std::string& bytes) {
  if (bytes.size() < 4 || bytes.compare(0, 4, "PK\x03\x04") != 0) {
    throw core::Error(path + ": not a zip-format torch.save file" +
                      (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x80
                           ? std::string(" (it looks like the legacy format of PyTorch < 1.6)")
                           : std::string()) +
                      "; re-save it in Python: torch.save(dict(torch.load(OLD)), NEW)");
  }
  torch::IValue value;
  try {
    value = torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
  } catch (const c10::Error& e) {
    throw core::Error(
        path + ": cannot be read as a dict saved by torch.save (" +
        FirstLine(e.what_without_backtrace()) +
        "); save a Python state_dict as a plain dict: torch.save(dict(model.state_dict()), FILE)");
  } catch (const std::exception& e) {  // the zip and pickle readers may throw other kinds too
    throw core::Error(path + ": cannot be read as a dict saved by torch.save (" +
                      FirstLine(e.what()) + ")");
  }
  if (!value.isGenericDict()) {
    throw core::Error(path + ": holds a " + value.tagKind() + ", not a dict from names to tensors");
  }
  std::map<std::string, torch::Tensor> out;
  for (const auto& entry : value.toGenericDict()) {
    if (!entry.key().isString()) {
      throw core::Error(path + ": a key of the dict is a " + entry.key().tagKind() +
                        ", not a string");
    }
    const std::string key = entry.key().toStringRef();
    if (!entry.value().isTensor()) {
      throw core::Error(path + ": key \"" + key + "\": a " + entry.value().tagKind() +
                        ", not a tensor");
    }
    out.emplace(key, entry.value().toTensor());
  }
  return out;
}

}  // namespace

StateDictLoadReport LoadStateDict(torch::nn::Module& module, const std::string& path) {
  StateDictLoadReport report;
  report.path = path;
  const std::string bytes = core::ReadFile(path);
  report.sha256 = core::Sha256Hex(bytes);
  std::map<std::string, torch::Tensor> file = ReadTensorDict(path, bytes);

  std::vector<std::pair<std::string, torch::Tensor>> targets;
  for (const auto& p : module.named_parameters(/*recurse=*/true))
    targets.emplace_back(p.key(), p.value());
  for (const auto& b : module.named_buffers(/*recurse=*/true))
    targets.emplace_back(b.key(), b.value());

  torch::NoGradGuard no_grad;
  std::vector<std::string> used;
  for (auto& [name, dst] : targets) {
    const auto it = file.find(name);
    if (it == file.end()) {
      if (EndsWith(name, "num_batches_tracked")) {
        report.missing.push_back(name);
        continue;
      }
      throw core::Error(
          path + ": no tensor \"" + name + "\", which the model has (the file has " +
          std::to_string(file.size()) + " tensors" +
          (file.empty() ? std::string() : ", the first \"" + file.begin()->first + "\"") + ")");
    }
    const torch::Tensor& src = it->second;
    if (src.sizes() != dst.sizes()) {
      throw core::Error(path + ": key \"" + name + "\": shape " + ShapeString(src) +
                        " in the file, " + ShapeString(dst) + " in the model");
    }
    if (src.is_floating_point() != dst.is_floating_point()) {
      throw core::Error(path + ": key \"" + name +
                        "\": " + std::string(c10::toString(src.scalar_type())) + " in the file, " +
                        c10::toString(dst.scalar_type()) + " in the model");
    }
    dst.copy_(src.to(dst.scalar_type()));
    used.push_back(name);
    ++report.loaded;
  }
  std::sort(used.begin(), used.end());
  for (const auto& [key, tensor] : file) {
    if (!std::binary_search(used.begin(), used.end(), key)) report.unused.push_back(key);
  }
  return report;
}

void SaveStateDict(const torch::nn::Module& module, const std::string& path) {
  c10::Dict<std::string, torch::Tensor> dict;
  for (const auto& p : module.named_parameters(/*recurse=*/true)) {
    dict.insert(p.key(), p.value().detach().to(torch::kCPU).contiguous());
  }
  for (const auto& b : module.named_buffers(/*recurse=*/true)) {
    dict.insert(b.key(), b.value().detach().to(torch::kCPU).contiguous());
  }
  const std::vector<char> bytes = torch::pickle_save(torch::IValue(dict));
  core::WriteFileAtomically(path, std::string(bytes.begin(), bytes.end()));
}

}  // namespace trainbench::models
