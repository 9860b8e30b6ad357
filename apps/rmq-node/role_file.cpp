#include "apps/rmq-node/role_file.hpp"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "messages/common/errors.hpp"
#include "runtime/common/json_file.hpp"

namespace rmq::node {

std::string role_file_path(const std::string& store_dir) {
  return store_dir + "/config/brokerRole.json";
}

caf::expected<std::optional<role_override>>
load_role_override(const std::string& store_dir) {
  auto path = role_file_path(store_dir);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return std::optional<role_override>{};
  auto doc = json_file::load(path);
  if (!doc)
    return std::move(doc.error());
  auto id = doc->find("brokerId");
  auto role = doc->find("brokerRole");
  if (!doc->is_object() || id == doc->end() || !id->is_number_integer()
      || role == doc->end() || !role->is_string())
    return make_error(errc::corrupt_data,
                      path
                        + ": no brokerId and brokerRole; remove it to "
                          "start by the flags");
  auto term = doc->find("newTerm");
  return std::optional<role_override>{role_override{
    id->get<int64_t>(), role->get<std::string>(),
    term != doc->end() && term->is_boolean() && term->get<bool>()}};
}

caf::error save_role_override(const std::string& store_dir,
                              const role_override& x) {
  std::error_code ec;
  std::filesystem::create_directories(store_dir + "/config", ec);
  nlohmann::json doc{{"brokerId", x.broker_id}, {"brokerRole", x.role}};
  if (x.new_term)
    doc["newTerm"] = true;
  return json_file::save(role_file_path(store_dir), doc);
}

} // namespace rmq::node
