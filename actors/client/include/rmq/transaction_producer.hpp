// Public header of the rmq client library: the transaction producer and its listener.
// Programs outside this tree include <rmq/transaction_producer.hpp> (find_package(rmq) and
// rmq::client, docs/client.md, "Using the library from another project");
// the rest of the tree includes actors/client/producer/transaction_producer.hpp directly.
#pragma once

#include "actors/client/producer/transaction_producer.hpp"
