#include "actors/broker/table/client_manager.hpp"

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "caf/actor_cast.hpp"
#include "caf/send.hpp"
#include "caf/system_messages.hpp"

#include "messages/common/errors.hpp"
#include "runtime/common/log.hpp"
#include "runtime/common/request_failure.hpp"

#include "actors/common/dump.hpp"

namespace rmq {

const char* client_manager_state::name = "client_manager";

namespace {

constexpr const char* component = "client_manager";

using self_pointer
  = client_manager_actor::stateful_pointer<client_manager_state>;

int64_t millis(caf::timespan x) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(x).count();
}

// Removes every member `pred` selects; returns whether any was removed.
template <class Members, class Pred>
bool remove_members(Members& members, Pred pred) {
  auto before = members.size();
  for (auto i = members.begin(); i != members.end();)
    i = pred(*i) ? members.erase(i) : std::next(i);
  return members.size() != before;
}

} // namespace

// -- logic --------------------------------------------------------------------

void client_manager_state::register_producer(const std::string& group,
                                             const caf::actor_addr& ch,
                                             const std::string& client_id,
                                             time_point now) {
  producers[group][ch] = member{client_id, now};
}

bool client_manager_state::register_consumer(const consumer_data& data,
                                             const caf::actor_addr& ch,
                                             const std::string& client_id,
                                             bool notify_enabled,
                                             time_point now) {
  auto& g = consumers[data.group_name];
  // RocketMQ updateChannel: the group takes the latest heartbeat's
  // settings; only a new channel is a change of members.
  g.type = data.type;
  g.model = data.model;
  g.from_where = data.from_where;
  g.notify = notify_enabled;
  auto [it, added] = g.members.emplace(ch, member{client_id, now});
  if (!added) {
    if (it->second.client_id != client_id)
      RMQ_WARN(component, "group " << data.group_name << ": channel of "
                                   << it->second.client_id << " now says it is "
                                   << client_id);
    it->second = member{client_id, now};
  }
  // RocketMQ updateSubscription: a new topic or a dropped one is a change;
  // a newer version of a known one replaces it without being one.
  bool changed = added;
  std::set<std::string> topics;
  for (auto& sub : data.subscriptions) {
    topics.insert(sub.topic);
    auto i = g.subscriptions.find(sub.topic);
    if (i == g.subscriptions.end()) {
      g.subscriptions.emplace(sub.topic, sub);
      changed = true;
    } else if (sub.sub_version > i->second.sub_version) {
      i->second = sub;
    }
  }
  if (remove_members(g.subscriptions, [&](const auto& kvp) {
        return topics.count(kvp.first) == 0;
      }))
    changed = true;
  return changed && g.notify && g.model == message_model::clustering;
}

std::vector<std::string>
client_manager_state::unregister(const unregister_client_request& x,
                                 std::vector<caf::actor_addr>& dropped) {
  std::vector<std::string> result;
  std::set<caf::actor_addr> touched;
  auto by_id = [&](const auto& kvp) {
    if (kvp.second.client_id != x.client_id)
      return false;
    touched.insert(kvp.first);
    return true;
  };
  if (!x.producer_group.empty()) {
    if (auto i = producers.find(x.producer_group); i != producers.end()) {
      remove_members(i->second, by_id);
      if (i->second.empty())
        producers.erase(i);
    }
  }
  if (!x.consumer_group.empty()) {
    if (auto i = consumers.find(x.consumer_group); i != consumers.end()) {
      auto& g = i->second;
      if (remove_members(g.members, by_id)) {
        if (g.members.empty())
          consumers.erase(i);
        else if (g.notify && g.model == message_model::clustering)
          result.push_back(x.consumer_group);
      }
    }
  }
  for (auto& ch : touched)
    if (!in_use(ch))
      dropped.push_back(ch);
  return result;
}

std::vector<std::string>
client_manager_state::drop_channel(const caf::actor_addr& ch) {
  std::vector<std::string> result;
  for (auto i = producers.begin(); i != producers.end();) {
    i->second.erase(ch);
    i = i->second.empty() ? producers.erase(i) : std::next(i);
  }
  for (auto i = consumers.begin(); i != consumers.end();) {
    auto& g = i->second;
    if (g.members.erase(ch) > 0 && !g.members.empty() && g.notify
        && g.model == message_model::clustering)
      result.push_back(i->first);
    i = g.members.empty() ? consumers.erase(i) : std::next(i);
  }
  return result;
}

std::vector<std::string>
client_manager_state::expire(time_point now,
                             std::vector<caf::actor_addr>& dropped) {
  std::set<caf::actor_addr> touched;
  auto idle = [&](const auto& kvp) {
    if (now - kvp.second.last_update <= options.channel_expired_timeout)
      return false;
    RMQ_INFO(component, "client " << kvp.second.client_id << " silent for "
                                  << millis(now - kvp.second.last_update)
                                  << " ms: dropped");
    touched.insert(kvp.first);
    return true;
  };
  for (auto i = producers.begin(); i != producers.end();) {
    remove_members(i->second, idle);
    i = i->second.empty() ? producers.erase(i) : std::next(i);
  }
  std::vector<std::string> result;
  for (auto i = consumers.begin(); i != consumers.end();) {
    auto& g = i->second;
    if (remove_members(g.members, idle) && !g.members.empty() && g.notify
        && g.model == message_model::clustering)
      result.push_back(i->first);
    i = g.members.empty() ? consumers.erase(i) : std::next(i);
  }
  for (auto& [ch, info] : channels)
    if (touched.count(ch) > 0
        || now - info.last_seen > options.channel_expired_timeout)
      if (!in_use(ch))
        dropped.push_back(ch);
  return result;
}

caf::expected<consumer_list>
client_manager_state::consumer_ids(const std::string& group) const {
  auto i = consumers.find(group);
  if (i == consumers.end() || i->second.members.empty())
    return make_error(errc::system_error,
                      "no consumer for this group, " + group);
  consumer_list result;
  for (auto& [ch, m] : i->second.members)
    result.client_ids.push_back(m.client_id);
  std::sort(result.client_ids.begin(), result.client_ids.end());
  result.client_ids.erase(std::unique(result.client_ids.begin(),
                                      result.client_ids.end()),
                          result.client_ids.end());
  return result;
}

caf::expected<consumer_connection>
client_manager_state::connections_of(const std::string& group) const {
  auto i = consumers.find(group);
  if (i == consumers.end() || i->second.members.empty())
    return make_error(errc::system_error,
                      "the consumer group[" + group + "] not online");
  auto& g = i->second;
  consumer_connection out;
  out.type = g.type;
  out.model = g.model;
  out.from_where = g.from_where;
  for (auto& [ch, m] : g.members) {
    client_connection c;
    c.client_id = m.client_id;
    if (auto j = channels.find(ch); j != channels.end()) {
      c.client_addr = j->second.client_addr;
      c.language = j->second.language;
      c.version = j->second.version;
    }
    // A CAF client names no address: its client id's IP.
    if (c.client_addr.empty())
      c.client_addr = m.client_id.substr(0, m.client_id.find('@'));
    out.connections.push_back(std::move(c));
  }
  for (auto& [topic, sub] : g.subscriptions)
    out.subscriptions.push_back(sub);
  return out;
}

std::vector<caf::actor>
client_manager_state::producer_channels(const std::string& group) const {
  std::vector<std::pair<time_point, caf::actor>> found;
  if (auto i = producers.find(group); i != producers.end())
    for (auto& [ch, m] : i->second)
      if (auto j = channels.find(ch); j != channels.end() && j->second.hdl)
        found.emplace_back(m.last_update, j->second.hdl);
  std::stable_sort(found.begin(), found.end(),
                   [](auto& x, auto& y) { return x.first > y.first; });
  std::vector<caf::actor> result;
  result.reserve(found.size());
  for (auto& f : found)
    result.push_back(std::move(f.second));
  return result;
}

caf::expected<caf::actor>
client_manager_state::consumer_channel(const std::string& group,
                                       const std::string& client_id) const {
  if (auto i = consumers.find(group); i != consumers.end())
    for (auto& [ch, m] : i->second.members)
      if (m.client_id == client_id)
        if (auto j = channels.find(ch); j != channels.end() && j->second.hdl)
          return j->second.hdl;
  // AdminBrokerProcessor#callConsumer's words.
  return make_error(errc::system_error, "The Consumer <" + group + "> <"
                                          + client_id + "> not online");
}

caf::expected<caf::actor>
client_manager_state::client_channel(const std::string& client_id) const {
  // Producers first: a reply goes to the requesting producer's client.
  auto find
    = [&](const std::map<caf::actor_addr, member>& members) -> caf::actor {
    for (auto& [ch, m] : members)
      if (m.client_id == client_id)
        if (auto j = channels.find(ch); j != channels.end())
          return j->second.hdl;
    return {};
  };
  for (auto& [name, members] : producers)
    if (auto hdl = find(members))
      return hdl;
  for (auto& [name, g] : consumers)
    if (auto hdl = find(g.members))
      return hdl;
  return make_error(errc::system_error,
                    "client " + client_id + " is not online at this broker");
}

bool client_manager_state::in_use(const caf::actor_addr& ch) const {
  for (auto& [name, members] : producers)
    if (members.count(ch) > 0)
      return true;
  for (auto& [name, g] : consumers)
    if (g.members.count(ch) > 0)
      return true;
  return false;
}

nlohmann::json client_manager_state::dump_fields() const {
  auto member_rows = [&](const std::map<caf::actor_addr, member>& members) {
    auto rows = nlohmann::json::array();
    for (auto& [ch, m] : members)
      rows.push_back({{"client_id", m.client_id},
                      {"idle_ms", millis(dump_now - m.last_update)}});
    return rows;
  };
  auto consumer_rows = nlohmann::json::array();
  for (auto& [name, g] : consumers) {
    auto subs = nlohmann::json::array();
    for (auto& [topic, sub] : g.subscriptions)
      subs.push_back(sub);
    consumer_rows.push_back({{"group", name},
                             {"consume_type", g.type},
                             {"message_model", g.model},
                             {"consume_from_where", g.from_where},
                             {"notify", g.notify},
                             {"members", member_rows(g.members)},
                             {"subscriptions", std::move(subs)}});
  }
  auto producer_rows = nlohmann::json::array();
  for (auto& [name, members] : producers)
    producer_rows.push_back(
      {{"group", name}, {"members", member_rows(members)}});
  return {
    {"consumer_groups", std::move(consumer_rows)},
    {"producer_groups", std::move(producer_rows)},
    {"channels", channels.size()},
    {"channel_expired_timeout_ms", millis(options.channel_expired_timeout)},
    {"scan_interval_ms", millis(options.scan_interval)},
    {"heartbeats", heartbeats},
    {"notifications", notifications},
    {"expired_channels", expired_channels},
    {"closed_channels", closed_channels},
    {"skipped_consumers", skipped_consumers},
  };
}

// -- actor --------------------------------------------------------------------

namespace {

void notify(self_pointer self, const std::vector<std::string>& groups) {
  auto& st = self->state;
  for (auto& name : groups) {
    auto i = st.consumers.find(name);
    if (i == st.consumers.end())
      continue;
    for (auto& [ch, m] : i->second.members) {
      auto j = st.channels.find(ch);
      if (j == st.channels.end())
        continue;
      // A typed actor may not send() to an untyped channel; the message
      // names the group, the client needs no sender.
      caf::anon_send(j->second.hdl, consumer_ids_changed{name});
      ++st.notifications;
    }
  }
}

void forget_channel(self_pointer self, const caf::actor_addr& ch) {
  auto& st = self->state;
  if (auto i = st.channels.find(ch); i != st.channels.end()) {
    self->demonitor(i->second.hdl);
    st.channels.erase(i);
  }
}

// One heartbeat's consumer groups: the table lookups run in parallel, the
// client gets one answer when all are done (the first error, if any).
struct heartbeat_progress {
  caf::typed_response_promise<caf::ok_atom> rp;
  size_t pending = 0;
  caf::error first_error;

  void done(caf::error err = {}) {
    if (err && !first_error)
      first_error = std::move(err);
    if (--pending > 0)
      return;
    if (first_error)
      rp.deliver(first_error);
    else
      rp.deliver(caf::ok_atom::value);
  }
};

void register_consumer_group(self_pointer self,
                             std::shared_ptr<heartbeat_progress> progress,
                             consumer_data data, caf::actor_addr ch,
                             std::string client_id) {
  auto& st = self->state;
  auto group = data.group_name;
  self
    ->request(st.groups, st.options.table_timeout,
              find_subscription_group_request{group})
    .then(
      [=](const subscription_group_config& cfg) mutable {
        auto& st = self->state;
        // The channel may have exited while we waited.
        if (st.channels.count(ch) > 0
            && st.register_consumer(data, ch, client_id,
                                    cfg.notify_consumer_ids_changed_enable,
                                    self->clock().now()))
          notify(self, {group});
        // RocketMQ creates the retry topic on every consumer heartbeat
        // (createTopicInSendMessageBackMethod); the table answers at once
        // when it exists.
        group_topic_request req{group, cfg.retry_queue_nums, perm::read_write,
                                false};
        self->request(st.topics, st.options.table_timeout, req)
          .then([=](const topic_config&) { progress->done(); },
                [=](const caf::error& err) {
                  log_request_failure(
                    component, "creating the retry topic of " + group, err);
                  progress->done(err);
                });
      },
      [=](const caf::error& err) {
        if (err == errc::subscription_group_not_exist) {
          // RocketMQ skips the group and answers the heartbeat SUCCESS.
          RMQ_WARN(component, "heartbeat of " << client_id
                                              << " for unknown group " << group
                                              << ": skipped");
          ++self->state.skipped_consumers;
          progress->done();
          return;
        }
        log_request_failure(component, "looking up subscription group " + group,
                            err);
        progress->done(err);
      });
}

caf::result<caf::ok_atom> on_heartbeat(self_pointer self,
                                       const client_heartbeat& x) {
  auto& st = self->state;
  auto sender = caf::actor_cast<caf::actor>(self->current_sender());
  if (!sender)
    return make_error(errc::invalid_parameter,
                      "a heartbeat needs a sender (the client's channel)");
  if (x.client_id.empty())
    return make_error(errc::invalid_parameter, "a heartbeat needs a client id");
  ++st.heartbeats;
  auto ch = sender.address();
  auto now = self->clock().now();
  auto [it, added] = st.channels.emplace(ch, client_manager_state::channel{});
  it->second = client_manager_state::channel{sender, now, x.client_addr,
                                             x.language, x.version};
  if (added)
    self->monitor(sender);
  for (auto& group : x.producer_groups)
    st.register_producer(group, ch, x.client_id, now);
  if (x.consumers.empty())
    return caf::ok_atom::value;
  auto progress = std::make_shared<heartbeat_progress>();
  progress->rp = self->make_response_promise<caf::ok_atom>();
  progress->pending = x.consumers.size();
  for (auto& data : x.consumers)
    register_consumer_group(self, progress, data, ch, x.client_id);
  return progress->rp;
}

void scan(self_pointer self) {
  auto& st = self->state;
  std::vector<caf::actor_addr> dropped;
  auto changed = st.expire(self->clock().now(), dropped);
  st.expired_channels += static_cast<int64_t>(dropped.size());
  for (auto& ch : dropped)
    forget_channel(self, ch);
  notify(self, changed);
}

} // namespace

client_manager_actor::behavior_type client_manager(
  client_manager_actor::stateful_pointer<client_manager_state> self,
  client_manager_options options, subscription_group_table_actor groups,
  topic_config_table_actor topics) {
  auto& st = self->state;
  st.options = options;
  st.groups = std::move(groups);
  st.topics = std::move(topics);
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& st = self->state;
    if (st.channels.erase(dm.source) == 0)
      return;
    ++st.closed_channels;
    RMQ_INFO(component, "a client channel exited: dropping it");
    notify(self, st.drop_channel(dm.source));
  });
  self->delayed_send(self, options.scan_interval, tick_atom::value);
  return {
    [=](const client_heartbeat& x) -> caf::result<caf::ok_atom> {
      return on_heartbeat(self, x);
    },
    [=](const unregister_client_request& x) -> caf::ok_atom {
      auto& st = self->state;
      // The channel stays monitored while it is in other groups.
      std::vector<caf::actor_addr> dropped;
      notify(self, st.unregister(x, dropped));
      for (auto& ch : dropped)
        forget_channel(self, ch);
      return caf::ok_atom::value;
    },
    [=](const get_consumer_list_request& x) -> caf::result<consumer_list> {
      return self->state.consumer_ids(x.group);
    },
    [=](const get_consumer_connection_request& x)
      -> caf::result<consumer_connection> {
      auto out = self->state.connections_of(x.group);
      if (!out)
        return std::move(out.error());
      return std::move(*out);
    },
    [=](const get_consumer_running_info_request& x)
      -> caf::result<consumer_running_info> {
      auto ch = self->state.consumer_channel(x.group, x.client_id);
      if (!ch)
        return std::move(ch.error());
      auto rp = self->make_response_promise<consumer_running_info>();
      auto who = "<" + x.group + "> <" + x.client_id + ">";
      self->request(*ch, self->state.options.client_call_timeout, x)
        .then(
          [rp](consumer_running_info& info) mutable {
            rp.deliver(std::move(info));
          },
          [rp, who](caf::error& err) mutable {
            // The client's own refusal goes back as it said it;
            // a silent or lost client in callConsumer's words.
            if (err.category() == errc_category
                && err.code() == static_cast<uint8_t>(errc::system_error))
              rp.deliver(std::move(err));
            else if (err == caf::sec::request_timeout
                     || err == errc::request_timeout)
              rp.deliver(
                make_error(errc::request_timeout,
                           "consumer " + who + " Timeout: " + describe(err)));
            else
              rp.deliver(make_error(errc::system_error,
                                    "invoke consumer " + who
                                      + " Exception: " + describe(err)));
          });
      return rp;
    },
    [=](const find_producer_channels& x) {
      return self->state.producer_channels(x.group);
    },
    [=](const find_client_channel& x) -> caf::result<caf::actor> {
      auto ch = self->state.client_channel(x.client_id);
      if (!ch)
        return std::move(ch.error());
      return *ch;
    },
    [=](tick_atom) {
      scan(self);
      // Only our own tick re-arms the timer: a tick from elsewhere just
      // scans once more.
      if (self->current_sender() == self->ctrl())
        self->delayed_send(self, self->state.options.scan_interval,
                           tick_atom::value);
    },
    [=](dump_atom x) {
      self->state.dump_now = self->clock().now();
      return dump_handler(self)(x);
    },
  };
}

} // namespace rmq
