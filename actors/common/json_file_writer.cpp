#include "actors/common/json_file_writer.hpp"

#include <nlohmann/json.hpp>

#include "runtime/common/json_file.hpp"
#include "runtime/common/log.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* json_file_writer_state::name = "json_file_writer";

json_file_writer_actor::behavior_type json_file_writer(
  json_file_writer_actor::stateful_pointer<json_file_writer_state> self,
  std::string path, caf::actor owner) {
  self->state.path = std::move(path);
  // A down message has normal priority: it queues behind what the owner
  // sent before it went down.
  self->monitor(owner);
  self->set_down_handler([self](caf::down_msg&) { self->quit(); });
  return {
    [self](caf::put_atom, const std::string& text) -> caf::result<void> {
      auto& st = self->state;
      if (auto err = json_file::save_text(st.path, text)) {
        ++st.failures;
        st.last_error = describe(err);
        RMQ_ERROR("file", "cannot write " << st.path << ": " << st.last_error);
        return err;
      }
      ++st.writes;
      st.last_bytes = text.size();
      return caf::unit;
    },
    dump_handler(self),
  };
}

nlohmann::json json_file_writer_state::dump_fields() const {
  return {
    {"path", path},
    {"writes", writes},
    {"failures", failures},
    {"last_bytes", last_bytes},
    {"last_error", last_error},
  };
}

} // namespace rmq
