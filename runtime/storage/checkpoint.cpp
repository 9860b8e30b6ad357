#include "runtime/storage/checkpoint.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include "messages/common/errors.hpp"
#include "runtime/message/byte_coding.hpp"

namespace rmq::storage {

namespace {

constexpr size_t fields = 6;
constexpr size_t page = 4096;

uint32_t crc_of(const char* p, size_t n) {
  return static_cast<uint32_t>(crc32(crc32(0L, Z_NULL, 0),
                                     reinterpret_cast<const Bytef*>(p),
                                     static_cast<uInt>(n)));
}

} // namespace

checkpoint checkpoint::load(const std::string& path) {
  checkpoint result;
  auto fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return result;
  char buf[fields * 8 + 4];
  auto n = ::pread(fd, buf, sizeof(buf), 0);
  ::close(fd);
  if (n != static_cast<ssize_t>(sizeof(buf))
      || get_be32(buf + fields * 8) != crc_of(buf, fields * 8)) {
    result.damaged = true;
    return result;
  }
  int64_t* dst[fields]
    = {&result.physic_msg_timestamp, &result.logics_msg_timestamp,
       &result.index_msg_timestamp,  &result.master_flushed_offset,
       &result.confirm_phy_offset,   &result.dispatched_offset};
  for (size_t i = 0; i < fields; ++i)
    *dst[i] = static_cast<int64_t>(get_be64(buf + i * 8));
  return result;
}

caf::error checkpoint::save(const std::string& path) const {
  char buf[page] = {};
  const int64_t src[fields] = {physic_msg_timestamp, logics_msg_timestamp,
                               index_msg_timestamp,  master_flushed_offset,
                               confirm_phy_offset,   dispatched_offset};
  for (size_t i = 0; i < fields; ++i)
    put_be64(buf + i * 8, static_cast<uint64_t>(src[i]));
  put_be32(buf + fields * 8, crc_of(buf, fields * 8));
  auto fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return make_error(errc::io_error,
                      "open " + path + ": " + std::strerror(errno));
  auto n = ::pwrite(fd, buf, page, 0);
  auto err = errno;
  auto synced = n == static_cast<ssize_t>(page) && fdatasync(fd) == 0;
  if (!synced && n == static_cast<ssize_t>(page))
    err = errno;
  ::close(fd);
  if (!synced)
    return make_error(err == ENOSPC ? errc::disk_full : errc::io_error,
                      "write " + path + ": " + std::strerror(err));
  return caf::none;
}

} // namespace rmq::storage
