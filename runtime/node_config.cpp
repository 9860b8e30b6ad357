#include "runtime/node_config.hpp"

#include "messages/errors.hpp"
#include "runtime/message_types.hpp"
#include "runtime/option_parser.hpp"

namespace rmq {

node_config::node_config() {
  register_message_types(*this);
  add_error_category(errc_category, render_error);
  apply_tuned_defaults();
}

void node_config::apply_tuned_defaults() {
  set("scheduler.policy", caf::atom("sharing"));
  set("scheduler.max-threads", size_t{1});
  set("middleman.workers", size_t{0});
  // Debian's CAF compiles logging out; a CAF built with logging would
  // otherwise write log files into the working directory.
  set("logger.file-verbosity", caf::atom("quiet"));
}

caf::error node_config::parse_command_line(int argc, char** argv) {
  std::vector<std::string> args{argv + 1, argv + argc};
  return parse(normalize_args(args, custom_options_));
}

} // namespace rmq
