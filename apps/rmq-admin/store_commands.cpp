// Offline store commands: they read a stopped store's files and need no
// NameServer (runtime/storage/store_verifier.hpp).
#include <iostream>

#include "apps/rmq-admin/commands.hpp"
#include "runtime/storage/store_verifier.hpp"

namespace rmq::admin {

int verify_store_cmd(const command_env& env) {
  auto report = storage::verify_store(env.args.opt('d'));
  if (!report)
    return env.fail(report.error());
  std::cout << storage::format_report(*report) << std::flush;
  return report->ok() ? 0 : 1;
}

} // namespace rmq::admin
