// Public header of the rmq client library: push and lite pull consumers, their options and listeners.
// Programs outside this tree include <rmq/consumer.hpp> (find_package(rmq) and
// rmq::client, docs/client.md, "Using the library from another project");
// the rest of the tree includes actors/client/consumer/consumer.hpp directly.
#pragma once

#include "actors/client/consumer/consumer.hpp"
