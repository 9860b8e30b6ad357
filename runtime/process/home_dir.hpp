// Where per-user files live by default (RocketMQ keeps them under
// ${user.home}, e.g. ~/namesrv/kvConfig.json).
#pragma once

#include <string>

namespace rmq {

/// Returns $HOME (or "." if unset).
std::string home_dir();

} // namespace rmq
