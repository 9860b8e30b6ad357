// Public header of the rmq client library: request-reply: create_reply_message for a consumer answering a request.
// Programs outside this tree include <rmq/reply_message.hpp> (find_package(rmq) and
// rmq::client, docs/client.md, "Using the library from another project");
// the rest of the tree includes runtime/message/reply_message.hpp directly.
#pragma once

#include "runtime/message/reply_message.hpp"
