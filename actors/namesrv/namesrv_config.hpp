// A NameServer's settings as RocketMQ's GET_NAMESRV_CONFIG and
// UPDATE_NAMESRV_CONFIG see them (NamesrvConfig, NettyServerConfig): named
// properties with text values, and the rules for changing them at run time.
#pragma once

#include <map>
#include <string>

#include "caf/expected.hpp"

#include "actors/namesrv/namesrv_node.hpp"

namespace rmq {

/// RocketMQ's default configBlackList, which itself is on it.
constexpr const char* namesrv_config_black_list
  = "configBlackList;configStorePath;kvConfigPath";

/// Every setting under its RocketMQ property name ("orderMessageEnable"),
/// durations in milliseconds, booleans as "true"/"false".
std::map<std::string, std::string>
namesrv_properties(const namesrv_options& opts);

/// True for keys UPDATE_NAMESRV_CONFIG refuses outright: the black list
/// plus rocketmqHome, as RocketMQ's DefaultRequestProcessor.
bool is_black_listed_config(const std::string& key);

/// Returns `opts` with `changes` applied, or the first problem: a
/// black-listed key (no_permission, RocketMQ's "Can not update config in
/// black list."), an unknown key, a key read only at start, or a value that
/// does not parse (invalid_parameter). Nothing is applied on error.
caf::expected<namesrv_options>
apply_namesrv_properties(namesrv_options opts,
                         const std::map<std::string, std::string>& changes);

} // namespace rmq
