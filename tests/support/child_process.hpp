// System tests start real processes with rmq::child_process
// (runtime/process/child_process.hpp); this adds where the built executables are.
#pragma once

#include <string>
#include <vector>

#include "runtime/process/child_process.hpp"

namespace rmq::test {

using rmq::child_process;
using rmq::run_command;

/// Directory that holds the built executables (rmq-node, rmq-admin, ...).
std::string bin_dir();

/// The non-empty lines of a process's output, in order.
std::vector<std::string> output_lines(const std::string& text);

/// How often `what` occurs in a process's output.
size_t count_of(const std::string& out, const std::string& what);

/// The source tree (for scripts such as apps/rmq-node/make-dev-certs.sh).
std::string source_dir();

/// The cmake that configured this build (to install it and build a project
/// against the installed package).
std::string cmake_command();

} // namespace rmq::test
