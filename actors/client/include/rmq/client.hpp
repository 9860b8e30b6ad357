// Public header of the rmq client library: everything a program needs to
// send and consume messages. Programs outside this tree include
// <rmq/client.hpp> after find_package(rmq) and link rmq::client
// (docs/client.md, "Using the library from another project").
#pragma once

#include "rmq/consumer.hpp"
#include "rmq/errors.hpp"
#include "rmq/node_config.hpp"
#include "rmq/producer.hpp"
#include "rmq/reply_message.hpp"
#include "rmq/transaction_producer.hpp"
