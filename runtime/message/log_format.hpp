// The layout of one message record, as the commit log stores it and pulls
// carry it (RocketMQ MessageExtEncoder, MessageDecoder), and its property
// keys. The byte-by-byte grammar is in docs/storage-format.md; keep both in
// step. The store's own files (queue units, index) are in
// runtime/storage/file_layout.hpp.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rmq {

// -- commit-log record ---------------------------------------------------------

/// Magic of a record whose topic length is one byte (RocketMQ V1).
constexpr uint32_t message_magic_v1 = 0xDAA320A7;

/// Magic of a record whose topic length is two bytes (topics > 127 bytes).
constexpr uint32_t message_magic_v2 = 0xDAA320AB;

/// Marks the unused end of a segment: `int32 remaining | blank magic`.
constexpr uint32_t blank_magic = 0xCBD43194;

/// Room always kept at a segment's end for the blank marker.
constexpr size_t end_of_file_min_blank = 8;

/// Fixed part of a V1 record with IPv4 hosts: every field except the bytes
/// of body, topic and properties (4+4+4+4+4+8+8+4+8+8+8+8+4+8+4+1+2).
constexpr size_t record_fixed_size_v1 = 91;

// Byte positions of the fixed fields (IPv4 hosts).
constexpr size_t pos_total_size = 0;
constexpr size_t pos_magic = 4;
constexpr size_t pos_body_crc = 8;
constexpr size_t pos_queue_id = 12;
constexpr size_t pos_flag = 16;
constexpr size_t pos_queue_offset = 20;
constexpr size_t pos_physical_offset = 28;
constexpr size_t pos_sys_flag = 36;
constexpr size_t pos_born_timestamp = 40;
constexpr size_t pos_born_host = 48;

/// Largest queue id the writer accepts.
constexpr int32_t max_queue_id = 65535;

/// Largest properties field (its length is an int16).
constexpr size_t max_properties_size = 32767;

// -- sys flag bits --------------------------------------------------------------

namespace sys_flag {
constexpr int32_t compressed = 0x1;
constexpr int32_t multi_tags = 0x2;
constexpr int32_t transaction_prepared = 0x4;
constexpr int32_t transaction_commit = 0x8;
constexpr int32_t transaction_rollback = 0xC;
constexpr int32_t transaction_mask = 0xC;
constexpr int32_t born_host_v6 = 0x10;
constexpr int32_t store_host_v6 = 0x20;
} // namespace sys_flag

// -- property keys (RocketMQ MessageConst) ------------------------------------

constexpr char property_keys[] = "KEYS";
constexpr char property_tags[] = "TAGS";
constexpr char property_uniq_key[] = "UNIQ_KEY";
constexpr char name_value_separator = '\x01';
constexpr char property_separator = '\x02';

} // namespace rmq
