// SHA-256 (FIPS 180-4) of a byte string, as lower-case hex. The results history identifies a
// run by the hash of its log file's bytes, so importing the same log twice stores one run.
#pragma once

#include <string>

namespace trainbench::report {

// 64 lower-case hex digits.
std::string Sha256Hex(const std::string& data);

}  // namespace trainbench::report
