// YAML -> JSON conversion shared by the YAML readers (benchmark definitions, rule files).
// YAML scalars are untyped text: a quoted scalar stays a string; otherwise true/True,
// false/False, null/~/empty, an integer, a float, else a string.
#pragma once

#include <yaml-cpp/yaml.h>

#include "core/json.h"

namespace trainbench::core {

Json YamlScalarToJson(const YAML::Node& scalar);
// Scalars as above, sequences as arrays, maps as objects (in file order); undefined -> null.
Json YamlToJson(const YAML::Node& node);

}  // namespace trainbench::core
