#include "apps/rmq-admin/commands.hpp"

namespace rmq::admin {

const std::vector<command_spec>& command_table() {
  static const std::vector<command_spec> table{
    {"dump", "dump [-b BROKER_ADDR]",
     "JSON dump of every actor of the NameServer (or of the broker)", "", "b",
     dump_cmd},
    {"topicRoute", "topicRoute -t TOPIC", "route data of a topic", "t", "",
     topic_route_cmd},
    {"topicList", "topicList", "all topics, one per line", "", "",
     topic_list_cmd},
    {"topicsByCluster", "topicsByCluster -c CLUSTER",
     "topics served by a cluster", "c", "", topics_by_cluster_cmd},
    {"deleteTopic", "deleteTopic -t TOPIC [-c CLUSTER]",
     "delete a topic (the cluster's masters, then every NameServer)", "t", "c",
     delete_topic_cmd},
    {"clusterList", "clusterList", "clusters, brokers, addresses", "", "",
     cluster_list_cmd},
    {"brokerMemberGroup", "brokerMemberGroup -b BROKER [-c CLUSTER]",
     "addresses of a broker group", "b", "c", broker_member_group_cmd},
    {"wipeWritePerm", "wipeWritePerm -b BROKER",
     "take a broker out of writes (every NameServer of the list)", "b", "",
     wipe_write_perm_cmd},
    {"addWritePerm", "addWritePerm -b BROKER",
     "put a broker back into writes (every NameServer of the list)", "b", "",
     add_write_perm_cmd},
    {"getKvConfig", "getKvConfig -s NS -k KEY", "value of a KV config item",
     "sk", "", get_kv_config_cmd},
    {"updateKvConfig", "updateKvConfig -s NS -k KEY -v VALUE",
     "set a KV config item", "skv", "", update_kv_config_cmd},
    {"deleteKvConfig", "deleteKvConfig -s NS -k KEY", "remove a KV config item",
     "sk", "", delete_kv_config_cmd},
    {"getKvList", "getKvList -s NS", "key=value lines of a namespace", "s", "",
     get_kv_list_cmd},
    {"getNamesrvConfig", "getNamesrvConfig",
     "settings of every NameServer of the list", "", "",
     get_namesrv_config_cmd},
    {"updateNamesrvConfig", "updateNamesrvConfig -k KEY -v VALUE",
     "change a setting on every NameServer of the list", "kv", "",
     update_namesrv_config_cmd},
    {"updateTopic",
     "updateTopic (-b ADDR|-c CLUSTER) -t TOPIC [-r 8] [-w 8] [-p 6] "
     "[-o false]",
     "create or update a topic on a broker or a cluster's masters", "t",
     "bcrwpo", update_topic_cmd},
    {"topicStatus", "topicStatus -t TOPIC",
     "min/max offset and last update per queue", "t", "", topic_status_cmd},
    {"brokerStatus", "brokerStatus (-b ADDR|-c CLUSTER)",
     "a broker's runtime figures (puts, gets, TPS, store)", "", "bc",
     broker_status_cmd},
    {"promote", "promote -b SLAVE_ADDR [-R ASYNC_MASTER|SYNC_MASTER] [-F true]",
     "make a slave its group's master (its master gone; no other slave "
     "ahead of it unless -F true)",
     "b", "RF", promote_cmd},
    {"haStatus", "haStatus -b BROKER_ADDR",
     "a master's slaves (ack offset, diff, speed, in sync) or a slave's copy",
     "b", "", ha_status_cmd},
    {"demote", "demote -b MASTER_ADDR -i BROKER_ID",
     "make a master (a returning old one) a slave with the given id", "bi", "",
     demote_cmd},
    {"consumerProgress", "consumerProgress [-g GROUP [-t TOPIC]]",
     "a group's offsets and diff per queue (no -g: every group)", "", "gt",
     consumer_progress_cmd},
    {"consumerConnection", "consumerConnection -g GROUP",
     "a consumer group's members, subscriptions and consume settings", "g", "",
     consumer_connection_cmd},
    {"consumerStatus", "consumerStatus -g GROUP [-i CLIENT_ID]",
     "each member's running info, asked through a broker (-i: one in full)",
     "g", "i", consumer_status_cmd},
    {"updateSubGroup",
     "updateSubGroup (-b ADDR|-c CLUSTER) -g GROUP [-s -m -d -o -a BOOL] "
     "[-q -r -i -w N]",
     "create or update a subscription group", "g", "bcsmdoaqriw",
     update_sub_group_cmd},
    {"queryMsgById", "queryMsgById -i MSG_ID [-t TOPIC]",
     "a message by offsetMsgId, or by UNIQ_KEY with -t", "i", "t",
     query_msg_by_id_cmd},
    {"queryMsgByKey", "queryMsgByKey -t TOPIC -k KEY",
     "ids of a topic's messages with a key", "tk", "", query_msg_by_key_cmd},
    {"queryMsgByOffset",
     "queryMsgByOffset -b BROKER_NAME -t TOPIC -i QUEUE_ID -o OFFSET",
     "the message at a queue offset", "btio", "", query_msg_by_offset_cmd},
    {"printMsg",
     "printMsg -t TOPIC [-c CHARSET] [-s SUBEXPR] [-b BEGIN] [-e END] "
     "[-d true]",
     "a topic's messages, per queue, between two store times", "t", "csbed",
     print_msg_cmd},
    {"sendMessage",
     "sendMessage -t TOPIC -p BODY [-k KEYS] [-c TAG] [-n COUNT] "
     "[-b BROKER_NAME -i QUEUE_ID]",
     "send through a real producer, one line per send", "tp", "kcNbi",
     send_message_cmd},
    {"consumeMessage",
     "consumeMessage -t TOPIC -g GROUP [-c COUNT] [-s TAGEXPR] "
     "[-f first|last]",
     "consume with a lite pull consumer, print, commit (ends after COUNT "
     "or 3 s idle)",
     "tg", "csf", consume_message_cmd},
    {"verifyStore", "verifyStore --store-dir DIR",
     "check a stopped store offline (exit 1 if damaged)", "d", "",
     verify_store_cmd, true},
  };
  return table;
}

const command_spec* find_command(const std::string& name) {
  for (auto& cmd : command_table())
    if (name == cmd.name)
      return &cmd;
  return nullptr;
}

} // namespace rmq::admin
