// YAML for trainbench's configuration files (benchmark definitions, tunings): a bounded,
// checked loader, and the YAML -> JSON conversion shared by the YAML readers (benchmark
// definitions, rule files). YAML scalars are untyped text: a quoted scalar stays a string;
// otherwise true/True, false/False, null/~/empty, an integer, a float, else a string.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

#include "core/json.h"

namespace trainbench::core {

// The largest configuration YAML file read: 1 MiB, about 100 times the largest definition in
// configs/ (11 KB).
inline constexpr uint64_t kMaxYamlFileBytes = uint64_t{1} << 20;
// The most nodes a configuration document may have, counting each alias as the whole node it
// refers to: that is what the readers and YamlToJson walk (yaml-cpp shares an aliased node, the
// walk does not). A definition in configs/ has about 1,000; nine levels of nine aliases
// ("billion laughs") have 387 million.
inline constexpr uint64_t kMaxYamlNodes = 100000;

// The deepest nesting of sequences and maps in a configuration document: yaml-cpp itself gives
// up between 400 and 490 levels (with the message "bad file"), YamlToJson recurses per level,
// and a definition in configs/ nests 6.
inline constexpr int kMaxYamlDepth = 256;

// Reads a configuration YAML file. Aliases stay allowed (a tuning may share one block of settings
// between scales with &name / *name), but bounded. Every failure is a core::Error naming the file:
//  - "<file>: cannot open: <reason>" (the caller may catch and reword it; see open_error) and
//    "<file>: is a directory, not a file" (or a FIFO, a device: only regular files are read),
//    "<file>: is N bytes, more than ..." above kMaxYamlFileBytes;
//  - "<file>:<line>:<column>: invalid YAML: <what>" for a syntax error, nesting deeper than
//    kMaxYamlDepth, a map key that is not
//    a scalar (a sequence, a map, null, or an alias of one: the readers need string keys), an
//    alias inside the node it refers to (a cycle), and more than kMaxYamlNodes nodes with the
//    aliases expanded.
// When open_error is given, a file that cannot be opened sets it (strerror text) and returns an
// undefined node instead of throwing, so that the caller can word it ("no tuning named ...").
YAML::Node LoadYamlFile(const std::string& path, std::string* open_error = nullptr);
// The same checks on YAML text; `source` names it in the messages.
YAML::Node LoadYamlText(const std::string& text, const std::string& source);

Json YamlScalarToJson(const YAML::Node& scalar);
// Scalars as above, sequences as arrays, maps as objects (in file order); undefined -> null.
Json YamlToJson(const YAML::Node& node);

}  // namespace trainbench::core
