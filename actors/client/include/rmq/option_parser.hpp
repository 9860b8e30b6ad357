// Public header of the rmq client library: the command-line parser the examples and tools use.
// Programs outside this tree include <rmq/option_parser.hpp> (find_package(rmq) and
// rmq::client, docs/client.md, "Using the library from another project");
// the rest of the tree includes runtime/process/option_parser.hpp directly.
#pragma once

#include "runtime/process/option_parser.hpp"
