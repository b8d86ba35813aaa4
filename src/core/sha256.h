// SHA-256 (FIPS 180-4) of a byte string, as lower-case hex. The results history identifies a
// run by the hash of its log file's bytes (importing the same log twice stores one run); runs that
// load pretrained weights log the weight file's hash.
#pragma once

#include <string>

namespace trainbench::core {

// 64 lower-case hex digits.
std::string Sha256Hex(const std::string& data);

}  // namespace trainbench::core
