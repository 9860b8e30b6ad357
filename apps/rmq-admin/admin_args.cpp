#include "apps/rmq-admin/admin_args.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "apps/rmq-admin/commands.hpp"

namespace rmq::admin {

namespace {

struct option_name {
  char key;
  const char* long_name;
};

// Every option takes a value. 'n', 'T' and 'X' (--tls-dir) are global, the
// rest belong to commands; a command rejects options it does not know.
constexpr option_name option_names[] = {
  {'n', "namesrv"},   {'T', "timeout-ms"}, {'t', "topic"},
  {'c', "cluster"},   {'s', "namespace"},  {'k', "key"},
  {'v', "value"},     {'b', "broker"},     {'X', "tls-dir"},
  {'d', "store-dir"},
};

std::optional<char> lookup(const std::string& name) {
  for (auto& x : option_names)
    if (name.size() == 1 ? name[0] == x.key : name == x.long_name)
      return x.key;
  return std::nullopt;
}

} // namespace

std::optional<std::string> parse_args(int argc, char** argv,
                                      admin_args& out) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      out.help = true;
      continue;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      if (!out.command.empty())
        return "unexpected argument '" + arg + "'";
      out.command = arg;
      continue;
    }
    // "-t T", "--topic T" or "--topic=T".
    auto name = arg.substr(arg[1] == '-' ? 2 : 1);
    std::optional<std::string> value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.erase(eq);
    }
    auto key = lookup(name);
    if (!key)
      return "unknown option '" + arg + "'";
    if (!value) {
      if (i + 1 >= argc)
        return "option '" + arg + "' needs a value";
      value = argv[++i];
    }
    out.opts[*key] = *value;
  }
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
    char line[160];
    std::snprintf(line, sizeof(line), "  %-42s %s\n", cmd.synopsis,
                  cmd.about);
    out << line;
  }
  out << "options: -t/--topic -c/--cluster -s/--namespace -k/--key "
         "-v/--value -b/--broker -d/--store-dir\n"
         "exit codes: 0 ok, 1 unreachable NameServer, error answer or "
         "damaged store, 2 usage error\n";
  return out.str();
}

} // namespace rmq::admin
