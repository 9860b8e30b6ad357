#include "runtime/message/body_compression.hpp"

#include <algorithm>
#include <cstdint>

#include <zlib.h>

#include "messages/common/errors.hpp"

namespace rmq {

namespace {

/// zlib counts in uInt: feed and take at most this much per call.
constexpr size_t max_chunk = 1u << 30;

} // namespace

std::string compress_body(std::string_view body, int level) {
  z_stream zs{};
  if (deflateInit(&zs, std::clamp(level, 0, 9)) != Z_OK)
    return {};
  std::string out;
  out.resize(deflateBound(&zs, static_cast<uLong>(body.size())));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  zs.avail_in = static_cast<uInt>(body.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  // deflateBound sized the output for the whole input: one call finishes.
  auto rc = deflate(&zs, Z_FINISH);
  out.resize(rc == Z_STREAM_END ? zs.total_out : 0);
  deflateEnd(&zs);
  return out;
}

caf::expected<std::string> decompress_body(std::string_view data,
                                           size_t max_size) {
  z_stream zs{};
  if (inflateInit(&zs) != Z_OK)
    return make_error(errc::system_error, "zlib inflateInit failed");
  // Grown as needed, never past max_size + 1: the one byte over tells an
  // oversize result (a zip bomb) from one that fits exactly.
  auto cap = max_size < SIZE_MAX ? max_size + 1 : max_size;
  std::string out;
  out.resize(std::min<size_t>(std::max<size_t>(data.size() * 4, 256), cap));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(std::min(data.size(), max_chunk));
  size_t fed = zs.avail_in;
  int rc = Z_OK;
  while (true) {
    if (zs.total_out == out.size()) {
      if (out.size() > max_size)
        break;
      out.resize(std::min(out.size() * 2, cap));
    }
    auto room = out.size() - zs.total_out;
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + zs.total_out);
    zs.avail_out = static_cast<uInt>(std::min(room, max_chunk));
    if (zs.avail_in == 0 && fed < data.size()) {
      auto n = std::min(data.size() - fed, max_chunk);
      zs.next_in
        = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()) + fed);
      zs.avail_in = static_cast<uInt>(n);
      fed += n;
    }
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END || (rc != Z_OK && rc != Z_BUF_ERROR))
      break;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && fed == data.size())
      break; // no more input and no progress: truncated
  }
  auto total = static_cast<size_t>(zs.total_out);
  auto consumed = static_cast<size_t>(zs.total_in);
  inflateEnd(&zs);
  if (total > max_size)
    return make_error(errc::message_illegal, "the inflated body exceeds "
                                               + std::to_string(max_size)
                                               + " bytes");
  if (rc != Z_STREAM_END)
    return make_error(errc::corrupt_data, "broken zlib stream (zlib code "
                                            + std::to_string(rc) + ")");
  if (consumed != data.size())
    return make_error(errc::corrupt_data,
                      "data after the end of the zlib stream");
  out.resize(total);
  // The buffer was sized by guess (4x the input, doubled as needed): a
  // consumer keeps each body until it is consumed, and a 64 KiB body in a
  // 256 KiB buffer made a blocked consumer hold 4x its flow-control bound
  // (rmq-bench consume-memory).
  if (out.capacity() > total + total / 8)
    out.shrink_to_fit();
  return out;
}

} // namespace rmq
