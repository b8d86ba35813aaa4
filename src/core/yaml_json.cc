#include "core/yaml_json.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "core/error.h"
#include "core/regular_file.h"
#include "core/utf8.h"

namespace trainbench::core {
namespace {

// "<source>:<line>:<column>: " from a yaml-cpp mark (0-based), "<source>: " without one.
std::string Where(const std::string& source, const YAML::Mark& m) {
  if (m.line < 0) return source + ": ";
  return source + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": ";
}

// Walks the parser's events once before the document is built and refuses what the readers
// cannot take (see LoadYamlFile): it counts nodes with every alias expanded, so an alias bomb
// is refused after kMaxYamlNodes nodes' worth of events, not after building its expansion.
class ConfigYamlCheck : public YAML::EventHandler {
 public:
  explicit ConfigYamlCheck(const std::string& source) : source_(source) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t anchor) override { Leaf(m, anchor, Kind::kNull); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    Leaf(m, anchor, Kind::kScalar);
  }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t anchor) override {
    // yaml-cpp registers an anchor when its node starts, so `&a [*a]` parses into a node that
    // contains itself; any recursive walk of it would never end.
    if (anchor >= anchors_.size() || !anchors_[anchor].complete) {
      Fail(m, "an alias inside the node it refers to (a cycle)");
    }
    const Anchor a = anchors_[anchor];
    Child(m, a.kind);
    Add(m, a.nodes);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(m, anchor, Kind::kSequence);
  }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(m, anchor, Kind::kMap);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapEnd() override { Close(); }

 private:
  enum class Kind { kNull, kScalar, kSequence, kMap };
  struct Frame {
    Kind kind;
    YAML::anchor_t anchor;
    uint64_t nodes_before;  // nodes_ when the node started
    uint64_t children;
  };
  struct Anchor {
    bool complete = false;
    Kind kind = Kind::kNull;
    uint64_t nodes = 0;  // expanded size of the anchored node
  };

  static const char* Name(Kind k) {
    switch (k) {
      case Kind::kNull:
        return "null";
      case Kind::kScalar:
        return "a scalar";
      case Kind::kSequence:
        return "a sequence";
      case Kind::kMap:
        return "a map";
    }
    return "?";
  }

  [[noreturn]] void Fail(const YAML::Mark& m, const std::string& what) const {
    throw Error(Where(source_, m) + "invalid YAML: " + what);
  }

  // A new node in the current container: in a map, every other one is a key.
  void Child(const YAML::Mark& m, Kind kind) {
    if (frames_.empty()) return;
    Frame& f = frames_.back();
    const bool is_key = f.kind == Kind::kMap && f.children % 2 == 0;
    ++f.children;
    if (is_key && kind != Kind::kScalar) {
      Fail(m, std::string("a map key must be a string, not ") + Name(kind));
    }
  }

  void Add(const YAML::Mark& m, uint64_t n) {
    nodes_ += n;
    if (nodes_ > kMaxYamlNodes) {
      Fail(m,
           "more than " + std::to_string(kMaxYamlNodes) +
               " nodes with the aliases expanded (an alias counts as the whole node it refers to)");
    }
  }

  void SetAnchor(YAML::anchor_t anchor, Kind kind, uint64_t nodes, bool complete) {
    if (anchor == YAML::NullAnchor) return;
    if (anchor >= anchors_.size()) anchors_.resize(anchor + 1);
    anchors_[anchor] = Anchor{complete, kind, nodes};
  }

  void Leaf(const YAML::Mark& m, YAML::anchor_t anchor, Kind kind) {
    Child(m, kind);
    Add(m, 1);
    SetAnchor(anchor, kind, 1, true);
  }

  void Open(const YAML::Mark& m, YAML::anchor_t anchor, Kind kind) {
    Child(m, kind);
    if (frames_.size() >= static_cast<size_t>(kMaxYamlDepth)) {
      Fail(m, "nested deeper than " + std::to_string(kMaxYamlDepth) + " levels");
    }
    frames_.push_back(Frame{kind, anchor, nodes_, 0});
    Add(m, 1);
    SetAnchor(anchor, kind, 0, false);
  }

  void Close() {
    const Frame f = frames_.back();
    frames_.pop_back();
    SetAnchor(f.anchor, f.kind, nodes_ - f.nodes_before, true);
  }

  const std::string& source_;
  std::vector<Frame> frames_;
  std::vector<Anchor> anchors_;  // by yaml-cpp's anchor id (1, 2, ...)
  uint64_t nodes_ = 0;
};

}  // namespace

YAML::Node LoadYamlText(const std::string& text, const std::string& source) {
  // yaml-cpp passes invalid UTF-8 through, and definition and tuning values end up in result
  // logs as JSON, whose serializer throws on it (found by benchmark_def_fuzz).
  if (auto e = FindInvalidUtf8(text)) {
    const auto bad = text.begin() + static_cast<std::ptrdiff_t>(e->offset);
    throw FileError(source, 1 + std::count(text.begin(), bad, '\n'), e->Message());
  }
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    ConfigYamlCheck check(source);
    parser.HandleNextDocument(check);
    return YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    // Its message is "bad file"; the check above should stop first.
    throw Error(Where(source, e.mark) + "invalid YAML: nested too deep for the YAML parser");
  } catch (const YAML::Exception& e) {
    throw Error(Where(source, e.mark) + "invalid YAML: " + e.msg);
  }
}

YAML::Node LoadYamlFile(const std::string& path, std::string* open_error) {
  std::string why;
  const std::string text = ReadRegularFile(path, kMaxYamlFileBytes, &why);
  if (!why.empty()) {
    if (open_error == nullptr) throw FileError(path, 0, "cannot open: " + why);
    *open_error = why;
    return YAML::Node();
  }
  return LoadYamlText(text, path);
}

Json YamlScalarToJson(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return s;  // quoted
  if (s == "true" || s == "True") return true;
  if (s == "false" || s == "False") return false;
  if (s == "null" || s == "~" || s.empty()) return nullptr;
  char* end = nullptr;
  errno = 0;
  long long i = std::strtoll(s.c_str(), &end, 10);
  if (*end == '\0' && errno == 0) return i;
  double d = std::strtod(s.c_str(), &end);
  if (*end == '\0') return d;
  return s;
}

Json YamlToJson(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Scalar:
      return YamlScalarToJson(n);
    case YAML::NodeType::Sequence: {
      Json a = Json::array();
      for (const auto& e : n) a.push_back(YamlToJson(e));
      return a;
    }
    case YAML::NodeType::Map: {
      Json o = Json::object();
      for (const auto& kv : n) o[kv.first.Scalar()] = YamlToJson(kv.second);
      return o;
    }
    default:
      return nullptr;
  }
}

}  // namespace trainbench::core
