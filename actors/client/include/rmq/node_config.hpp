// Public header of the rmq client library: the actor system config every rmq program starts with (message types, TLS, command line).
// Programs outside this tree include <rmq/node_config.hpp> (find_package(rmq) and
// rmq::client, docs/client.md, "Using the library from another project");
// the rest of the tree includes runtime/process/node_config.hpp directly.
#pragma once

#include "runtime/process/node_config.hpp"
