// Public header of the rmq client library: error codes (rmq::errc) and describe().
// Programs outside this tree include <rmq/errors.hpp> (find_package(rmq) and
// rmq::client, docs/client.md, "Using the library from another project");
// the rest of the tree includes messages/common/errors.hpp directly.
#pragma once

#include "messages/common/errors.hpp"
