// Public header of the rmq client library: the producer (spawn_producer, spawn_producer_actor, client_message, send results).
// Programs outside this tree include <rmq/producer.hpp> (find_package(rmq) and
// rmq::client, docs/client.md, "Using the library from another project");
// the rest of the tree includes actors/client/producer/producer.hpp directly.
#pragma once

#include "actors/client/producer/producer.hpp"
