#include "runtime/storage/mapped_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "messages/common/errors.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/storage/file_layout.hpp"

namespace rmq::storage {

namespace {

caf::error os_error(const std::string& what, const std::string& path, int err) {
  auto code = (err == ENOSPC || err == EDQUOT) ? errc::disk_full
                                               : errc::io_error;
  return make_error(code, what + " " + path + ": " + std::strerror(err));
}

bool take_fault(const std::shared_ptr<fault_injection>& faults,
                std::atomic<int> fault_injection::*counter) {
  if (!faults)
    return false;
  auto& n = (*faults).*counter;
  auto cur = n.load();
  while (cur > 0)
    if (n.compare_exchange_weak(cur, cur - 1))
      return true;
  return false;
}

} // namespace

caf::expected<std::shared_ptr<mapped_file>>
mapped_file::open(const std::string& path, size_t size, int64_t base_offset,
                  std::shared_ptr<fault_injection> faults) {
  std::shared_ptr<mapped_file> result{new mapped_file};
  result->path_ = path;
  result->size_ = size;
  result->base_offset_ = base_offset;
  result->faults_ = faults;
  result->fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (result->fd_ < 0)
    return os_error("open", path, errno);
  struct stat st;
  if (fstat(result->fd_, &st) != 0)
    return os_error("stat", path, errno);
  if (static_cast<size_t>(st.st_size) < size) {
    if (take_fault(faults, &fault_injection::fail_allocate)) {
      if (st.st_size == 0)
        ::unlink(path.c_str());
      return make_error(errc::disk_full,
                        "allocate " + path + ": injected ENOSPC");
    }
    auto err = posix_fallocate(result->fd_, 0, static_cast<off_t>(size));
    if (err != 0) {
      if (st.st_size == 0)
        ::unlink(path.c_str());
      return os_error("allocate", path, err);
    }
  }
  auto ptr = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED,
                  result->fd_, 0);
  if (ptr == MAP_FAILED)
    return os_error("mmap", path, errno);
  result->data_ = static_cast<char*>(ptr);
  return result;
}

mapped_file::~mapped_file() {
  if (data_ != nullptr)
    munmap(data_, size_);
  if (fd_ >= 0)
    ::close(fd_);
  if (zero_fd_ >= 0)
    ::close(zero_fd_);
}

caf::error mapped_file::sync() {
  if (take_fault(faults_, &fault_injection::fail_sync))
    return make_error(errc::io_error, "fdatasync " + path_ + ": injected EIO");
  if (fdatasync(fd_) != 0)
    return os_error("fdatasync", path_, errno);
  return caf::none;
}

caf::error mapped_file::sync_written(size_t from, size_t to) {
  if (take_fault(faults_, &fault_injection::fail_sync))
    return make_error(errc::io_error, "fdatasync " + path_ + ": injected EIO");
  constexpr size_t page = 4096;
  to = std::min(to, size_);
  auto begin = from / page * page;
  if (begin >= to)
    return caf::none;
  // Only advice (the pages stay in the page cache, dirty): without it the
  // sync is merely slower.
  if (auto done = to / page * page; done > begin)
    ::madvise(data_ + begin, done - begin, MADV_DONTNEED);
  while (::msync(data_ + begin, to - begin, MS_SYNC) != 0)
    if (errno != EINTR)
      return os_error("fdatasync", path_, errno);
  return caf::none;
}

caf::error mapped_file::write_zeros(size_t from, size_t len) {
  static const char zeros[64 * 1024] = {};
  if (zero_fd_ < 0) {
    zero_fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (zero_fd_ < 0)
      return os_error("open", path_, errno);
  }
  auto end = std::min(from + len, size_);
  while (from < end) {
    auto n = std::min(end - from, sizeof(zeros));
    auto done = ::pwrite(zero_fd_, zeros, n, static_cast<off_t>(from));
    if (done < 0 && errno == EINTR)
      continue;
    if (done <= 0)
      return os_error("write zeros to", path_, done < 0 ? errno : EIO);
    from += static_cast<size_t>(done);
  }
  return caf::none;
}

caf::error mapped_file::sync_zeros() {
  if (zero_fd_ >= 0 && fdatasync(zero_fd_) != 0)
    return os_error("fdatasync", path_, errno);
  return caf::none;
}

void mapped_file::advise_writing(bool writing) {
  // Only advice: a kernel that ignores it is merely slower.
  ::madvise(data_, size_, writing ? MADV_RANDOM : MADV_NORMAL);
}

caf::error sync_file_system(const std::string& dir) {
  auto fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return os_error("open", dir, errno);
  auto rc = ::syncfs(fd);
  auto err = errno;
  ::close(fd);
  if (rc != 0)
    return os_error("syncfs", dir, err);
  return caf::none;
}

caf::error mapped_file::populate(size_t from, size_t len) {
// Linux 5.14; older kernels answer EINVAL, which stops warming.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
  constexpr size_t page = 4096;
  auto begin = from / page * page;
  auto end = std::min(from + len, size_);
  if (begin >= end)
    return caf::none;
  while (::madvise(data_ + begin, end - begin, MADV_POPULATE_WRITE) != 0) {
    if (errno != EINTR && errno != EAGAIN)
      return os_error("populate the mapping of", path_, errno);
  }
  // volatile: the compiler must not drop a store of the value just read.
  for (auto i = (from + page - 1) / page * page; i < end; i += page) {
    auto* p = static_cast<volatile char*>(data_ + i);
    *p = *p;
  }
  return caf::none;
}

caf::error mapped_file::zero_tail(size_t from) {
  if (from >= size_)
    return caf::none;
  auto len = static_cast<off_t>(size_ - from);
  if (fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                static_cast<off_t>(from), len)
      != 0) {
    // No hole punching here: write the zeros.
    memset(data_ + from, 0, size_ - from);
    return caf::none;
  }
  // Punching may leave partial pages at the edges untouched on some file
  // systems; clear the first page by hand and re-reserve the space.
  auto head = std::min<size_t>(size_ - from, 4096);
  memset(data_ + from, 0, head);
  auto err = posix_fallocate(fd_, static_cast<off_t>(from), len);
  if (err != 0)
    return os_error("allocate", path_, err);
  return caf::none;
}

void mapped_file::remove() {
  ::unlink(path_.c_str());
}

int64_t mapped_file::mtime_ms() const {
  struct stat st;
  if (fstat(fd_, &st) != 0)
    return 0;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000
         + st.st_mtim.tv_nsec / 1'000'000;
}

std::string offset_file_name(int64_t offset) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%0*lld", file_name_width,
           static_cast<long long>(offset));
  return buf;
}

std::vector<int64_t> list_offset_files(const std::string& dir) {
  std::vector<int64_t> result;
  std::error_code ec;
  for (auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    auto name = entry.path().filename().string();
    if (name.size() == file_name_width
        && name.find_first_not_of("0123456789") == std::string::npos)
      result.push_back(std::stoll(name));
  }
  std::sort(result.begin(), result.end());
  return result;
}

caf::error make_dirs(const std::string& dir) {
  std::string cur;
  for (size_t i = 0; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      if (!cur.empty() && ::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
        return os_error("mkdir", cur, errno);
    }
    if (i < dir.size())
      cur += dir[i];
  }
  return caf::none;
}

} // namespace rmq::storage
