// Public header of the rmq client library: the start of a program that
// runs until SIGINT or SIGTERM (block the signals before CAF starts its
// threads, read the command line and the network settings).
// Programs outside this tree include <rmq/program_start.hpp> (docs/client.md,
// "Using the library from another project"); the rest of the tree includes
// runtime/process/program_start.hpp directly.
#pragma once

#include "runtime/process/program_start.hpp"
