#include "apps/rmq-admin/admin_args.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <sstream>

#include "apps/rmq-admin/commands.hpp"
#include "runtime/process/option_parser.hpp"

namespace rmq::admin {

namespace {

struct option_name {
  char key;
  const char* long_name;
};

// Every option takes a value. 'n', 'T' and 'X' (--tls-dir) are global, the
// rest belong to commands; a command rejects options it does not know.
constexpr option_name option_names[] = {
  {'n', "namesrv"},
  {'T', "timeout-ms"},
  {'t', "topic"},
  {'c', "cluster"},
  {'s', "namespace"},
  {'k', "key"},
  {'v', "value"},
  {'b', "broker"},
  {'X', "tls-dir"},
  {'d', "store-dir"},
  // The broker commands' options: their short names are mqadmin's, which
  // mean different things per command (-i is a message id, a queue id or
  // a broker id), so the long names are only aliases.
  {'r', "read-queues"},
  {'w', "write-queues"},
  {'p', "perm"},
  {'o', "order"},
  {'g', "group"},
  {'m', "min-enable"},
  {'q', "retry-queues"},
  {'i', "id"},
  {'e', "end"},
  {'a', "notify"},
  {'N', "count"},
  // consumeMessage: where a new group starts (first|last).
  {'f', "from"},
  // promote: the new master's role, and whether to skip the checks.
  {'R', "role"},
  {'F', "force"},
};

// sendMessage's "-n COUNT" (the shape) shares its letter with
// mqadmin's "-n NAMESRV": after the command word, a number is a count.
void rename_count_option(std::vector<std::string>& args) {
  bool after_command = false;
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "sendMessage")
      after_command = true;
    else if (after_command && args[i] == "-n" && !args[i + 1].empty()
             && args[i + 1].find_first_not_of("0123456789")
                  == std::string::npos)
      args[i] = "--count";
  }
}

} // namespace

std::optional<std::string> parse_args(int argc, char** argv, admin_args& out) {
  // The shared parser (runtime/process/option_parser.hpp) with every option as a
  // string: each command says which of them it takes (commands.cpp).
  constexpr auto n_options = std::size(option_names);
  std::string values[n_options];
  option_parser parser{"rmq-admin", true};
  for (size_t i = 0; i < n_options; ++i)
    parser.add(std::string{option_names[i].long_name} + ","
                 + option_names[i].key,
               values[i], "");
  std::vector<std::string> args{argv + 1, argv + argc};
  rename_count_option(args);
  auto err = parser.try_parse(args);
  if (err == "help") {
    out.help = true;
    return std::nullopt;
  }
  if (!err.empty())
    return err;
  for (size_t i = 0; i < n_options; ++i)
    if (parser.given(option_names[i].long_name))
      out.opts[option_names[i].key] = values[i];
  auto& words = parser.positional();
  if (words.size() > 1)
    return "unexpected argument '" + words[1] + "'";
  if (!words.empty())
    out.command = words.front();
  if (out.help)
    return std::nullopt;
  if (out.command.empty())
    return "no command given";
  if (auto t = out.opts.find('T'); t != out.opts.end()) {
    char* end = nullptr;
    auto ms = std::strtol(t->second.c_str(), &end, 10);
    if (t->second.empty() || *end != '\0' || ms <= 0)
      return "--timeout-ms needs a positive number";
    out.timeout = std::chrono::milliseconds{ms};
    out.opts.erase(t);
  }
  out.tls_dir = out.opt('X');
  out.opts.erase('X');
  std::string list = out.opt('n');
  out.opts.erase('n');
  if (auto cmd = find_command(out.command); cmd != nullptr && cmd->offline)
    return std::nullopt; // needs no NameServer
  if (list.empty())
    if (auto env = std::getenv("NAMESRV_ADDR"))
      list = env;
  if (list.empty())
    return "no NameServer address (--namesrv/-n or NAMESRV_ADDR)";
  auto addrs = parse_host_port_list(list);
  if (!addrs)
    return "bad NameServer address '" + list + "' (want host:port;...)";
  out.namesrvs = std::move(*addrs);
  return std::nullopt;
}

std::string usage_text() {
  std::ostringstream out;
  out << "usage: rmq-admin --namesrv HOST:PORT[;HOST:PORT...] "
         "[--timeout-ms MS] [--tls-dir DIR] <command> [options]\n"
         "  -n, --namesrv     NameServer list (default: $NAMESRV_ADDR)\n"
         "      --timeout-ms  bound for connecting and each request "
         "(default 5000)\n"
         "      --tls-dir     mutual TLS: DIR/ca.pem, cert.pem, key.pem "
         "(make-dev-certs.sh)\n"
         "commands:\n";
  for (auto& cmd : command_table()) {
    char line[256];
    // A long synopsis gets a line of its own, the text goes below it.
    if (std::strlen(cmd.synopsis) > 42)
      std::snprintf(line, sizeof(line), "  %s\n  %-42s %s\n", cmd.synopsis, "",
                    cmd.about);
    else
      std::snprintf(line, sizeof(line), "  %-42s %s\n", cmd.synopsis,
                    cmd.about);
    out << line;
  }
  out
    << "options: -t/--topic -c/--cluster -s/--namespace -k/--key "
       "-v/--value -b/--broker -d/--store-dir\n"
       "  broker commands take mqadmin's short options, which mean what "
       "the command\n"
       "  says (-i: message, queue or broker id; -o: order or offset); "
       "booleans are\n"
       "  'true' or anything else for false, as Java's parseBoolean\n"
       "exit codes: 0 ok, 1 unreachable NameServer or broker, error answer or "
       "damaged store, 2 usage error\n";
  return out.str();
}

} // namespace rmq::admin
