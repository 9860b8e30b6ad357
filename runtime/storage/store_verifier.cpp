#include "runtime/storage/store_verifier.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <sstream>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "messages/common/errors.hpp"
#include "runtime/message/byte_coding.hpp"
#include "runtime/message/delay_levels.hpp"
#include "runtime/message/log_format.hpp"
#include "runtime/message/timer_message.hpp"
#include "runtime/storage/checkpoint.hpp"
#include "runtime/storage/consume_queue.hpp"
#include "runtime/storage/file_layout.hpp"
#include "runtime/storage/index_file.hpp"
#include "runtime/storage/mapped_file.hpp"
#include "runtime/storage/segment_scan.hpp"
#include "runtime/storage/store_lock.hpp"

namespace fs = std::filesystem;

namespace rmq::storage {

namespace {

// A file mapped read-only: mapped_file would create or extend it.
class read_only_file {
public:
  static std::unique_ptr<read_only_file> open(const std::string& path) {
    auto fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return nullptr;
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      ::close(fd);
      return nullptr;
    }
    std::unique_ptr<read_only_file> f{new read_only_file};
    f->size_ = static_cast<size_t>(st.st_size);
    if (f->size_ > 0) {
      auto p = ::mmap(nullptr, f->size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        ::close(fd);
        return nullptr;
      }
      f->data_ = static_cast<const char*>(p);
    }
    ::close(fd);
    return f;
  }

  ~read_only_file() {
    if (data_ != nullptr)
      ::munmap(const_cast<char*>(data_), size_);
  }

  const char* data() const {
    return data_;
  }

  size_t size() const {
    return size_;
  }

private:
  read_only_file() = default;

  const char* data_ = nullptr;
  size_t size_ = 0;
};

struct segment {
  int64_t base;
  std::string name;
  std::unique_ptr<read_only_file> file;
};

class verifier {
public:
  verifier(std::string dir, uint32_t index_slots, uint32_t index_entries)
    : dir_(std::move(dir)),
      index_slots_(index_slots),
      index_entries_(index_entries) {
    // nop
  }

  store_report run() {
    report_.crashed = fs::exists(dir_ + "/abort");
    check_commit_log();
    check_consume_queues();
    check_index();
    check_checkpoint();
    return std::move(report_);
  }

private:
  void problem(std::string file, int64_t offset, int64_t length,
               std::string what) {
    report_.problems.push_back(
      {std::move(file), offset, length, std::move(what)});
  }

  void check_commit_log() {
    auto dir = dir_ + "/commitlog";
    size_t seg_size = 0;
    for (auto base : list_offset_files(dir)) {
      auto name = "commitlog/" + offset_file_name(base);
      auto file = read_only_file::open(dir_ + "/" + name);
      if (!file) {
        problem(name, base, 0, "cannot be read");
        continue;
      }
      if (seg_size == 0)
        seg_size = file->size();
      if (!segs_.empty()) {
        auto& prev = segs_.back();
        auto expected = prev.base + static_cast<int64_t>(prev.file->size());
        if (base != expected)
          problem(name, expected, base - expected,
                  "gap in the log: no segment starts at "
                    + std::to_string(expected));
      }
      if (file->size() != seg_size)
        problem(name, base, 0,
                "file has " + std::to_string(file->size())
                  + " bytes, segments have " + std::to_string(seg_size));
      segs_.push_back({base, name, std::move(file)});
    }
    report_.segments = segs_.size();
    std::vector<segment_scan> scans;
    for (size_t i = 0; i < segs_.size(); ++i) {
      auto& seg = segs_[i];
      scans.push_back(scan_segment(
        seg.file->data(), seg.file->size(), seg.base, true,
        i + 1 < segs_.size(), [&](const record_view&, int64_t, bool intact) {
          report_.records += intact ? 1 : 0;
        }));
    }
    auto verdict = judge_log(scans);
    for (auto& bad : verdict.corruptions)
      problem(name_of(bad.segment), bad.offset, bad.length,
              "corrupt range (" + bad.reason
                + "); valid records follow: recovery skips it");
    if (verdict.torn_tail_offset >= 0) {
      auto& tail = *std::find_if(scans.begin(), scans.end(), [&](auto& sc) {
        return sc.trailing && sc.trailing->offset == verdict.torn_tail_offset;
      });
      problem(name_of(tail.trailing->segment), tail.trailing->offset,
              tail.trailing->length,
              "torn tail (" + tail.trailing->reason
                + "); no valid record follows: recovery cuts it");
    }
    if (verdict.last_valid < scans.size())
      log_end_ = segs_[verdict.last_valid].base
                 + static_cast<int64_t>(scans[verdict.last_valid].valid_end);
    else if (!segs_.empty())
      log_end_ = segs_.front().base;
    report_.log_end = log_end_;
  }

  std::string name_of(int64_t base) const {
    return "commitlog/" + offset_file_name(base);
  }

  const segment* find(int64_t offset) const {
    auto i = std::upper_bound(segs_.begin(), segs_.end(), offset,
                              [](int64_t x, const segment& s) {
                                return x < s.base;
                              });
    if (i == segs_.begin())
      return nullptr;
    --i;
    if (offset >= i->base + static_cast<int64_t>(i->file->size()))
      return nullptr;
    return &*i;
  }

  void check_consume_queues() {
    for (auto& dir : list_consume_queue_dirs(dir_ + "/consumequeue")) {
      ++report_.queues;
      check_queue(dir.topic, dir.queue_id);
    }
  }

  void check_queue(const std::string& topic, int32_t qid) {
    auto rel = "consumequeue/" + topic + "/" + std::to_string(qid);
    auto log_min = segs_.empty() ? 0 : segs_.front().base;
    int64_t expected_base = -1;
    bool ended = false;
    for (auto base : list_offset_files(dir_ + "/" + rel)) {
      auto name = rel + "/" + offset_file_name(base);
      auto file = read_only_file::open(dir_ + "/" + name);
      if (!file) {
        problem(name, base / 20, 0, "cannot be read");
        return;
      }
      if (expected_base >= 0 && base != expected_base) {
        problem(name, base / 20, 0,
                "gap: expected a file starting at byte "
                  + std::to_string(expected_base));
        return;
      }
      if (file->size() % cq_unit_size != 0)
        problem(name, base / 20, 0, "size is no multiple of 20 bytes");
      expected_base = base + static_cast<int64_t>(file->size());
      for (size_t pos = 0; !ended && pos + cq_unit_size <= file->size();
           pos += cq_unit_size) {
        auto p = file->data() + pos;
        auto phys = static_cast<int64_t>(get_be64(p));
        auto size = static_cast<int32_t>(get_be32(p + 8));
        auto qoff = (base + static_cast<int64_t>(pos)) / 20;
        if (size == 0) {
          ended = true; // units are written in order
          break;
        }
        ++report_.units;
        if (size == INT32_MAX || phys < log_min)
          continue; // filler, or deleted by retention
        auto tags = static_cast<int64_t>(get_be64(p + 12));
        if (tags == cq_unit::damaged_tags)
          continue; // holds the place of a record recovery found damaged
        check_unit(name, topic, qid, qoff, phys, size, tags);
      }
    }
  }

  void check_unit(const std::string& name, const std::string& topic,
                  int32_t qid, int64_t qoff, int64_t phys, int32_t size,
                  int64_t tags) {
    auto at = "unit " + std::to_string(qoff) + " -> phys "
              + std::to_string(phys) + ": ";
    if (phys + size > log_end_) {
      problem(name, qoff, 0,
              at + "points past the end of the log (" + std::to_string(log_end_)
                + ")");
      return;
    }
    auto seg = find(phys);
    if (seg == nullptr) {
      problem(name, qoff, 0, at + "no segment holds it");
      return;
    }
    auto pos = static_cast<size_t>(phys - seg->base);
    auto data = seg->file->data() + pos;
    auto avail = seg->file->size() - pos;
    record_view rec;
    if (decode_record(data, avail, rec, true) != decode_status::ok
        || rec.phys_offset != phys) {
      problem(name, qoff, 0,
              at + "corrupt record (" + describe_damage(data, avail, phys)
                + ")");
      return;
    }
    std::ostringstream bad;
    if (rec.total_size != size)
      bad << "size " << size << " but the record has " << rec.total_size;
    else if (rec.topic != topic || rec.queue_id != qid)
      bad << "the record belongs to " << rec.topic << "/" << rec.queue_id;
    else if (rec.queue_offset != qoff)
      bad << "the record has queue offset " << rec.queue_offset;
    // The schedule and timer queues keep a due time there instead.
    else if (topic != schedule_topic && topic != timer_topic
             && tags != tags_code(find_property(rec.properties, "TAGS")))
      bad << "tags code " << tags << " is not the record's";
    if (!bad.str().empty())
      problem(name, qoff, 0, at + bad.str());
  }

  // Each index file's structure (index_file::check), and each entry's
  // offset must be a record start.
  void check_index() {
    for (auto base : list_offset_files(dir_ + "/index")) {
      auto name = "index/" + offset_file_name(base);
      auto file = read_only_file::open(dir_ + "/" + name);
      if (!file) {
        problem(name, 0, 0, "cannot be read");
        continue;
      }
      auto want = index_header_size + size_t{index_slots_} * index_slot_size
                  + size_t{index_entries_} * index_entry_size;
      if (file->size() != want)
        continue; // another geometry than the one given: cannot be read
      auto why = check_index_bytes(file->data(), file->size(), index_slots_,
                                   index_entries_, log_end_);
      if (!why.empty())
        problem(name, 0, 0,
                why + ": recovery rebuilds the index from the commit log");
    }
  }

  void check_checkpoint() {
    auto path = dir_ + "/checkpoint";
    if (!fs::exists(path)) {
      problem("checkpoint", 0, 0, "missing: recovery will scan the whole log");
      return;
    }
    auto cp = checkpoint::load(path);
    if (cp.damaged) {
      problem("checkpoint", 0, 0,
              "damaged (short or CRC mismatch): recovery will scan the "
              "whole log");
      return;
    }
    if (cp.dispatched_offset > log_end_)
      problem("checkpoint", cp.dispatched_offset, 0,
              "dispatched offset is past the end of the log ("
                + std::to_string(log_end_) + ")");
  }

  std::string dir_;
  uint32_t index_slots_;
  uint32_t index_entries_;
  store_report report_;
  std::vector<segment> segs_;
  int64_t log_end_ = 0;
};

} // namespace

caf::expected<store_report> verify_store(const std::string& dir,
                                         uint32_t index_slots,
                                         uint32_t index_entries) {
  std::error_code ec;
  if (!fs::is_directory(dir + "/commitlog", ec))
    return make_error(errc::invalid_parameter,
                      dir + " is no store folder (no commitlog/ in it)");
  // A live broker's files change under the reader: refuse, naming it.
  auto lock = store_lock::acquire(dir);
  if (!lock)
    return std::move(lock.error());
  return verifier{dir, index_slots, index_entries}.run();
}

std::string format_report(const store_report& report) {
  std::ostringstream out;
  for (auto& p : report.problems) {
    out << p.file << " offset " << p.offset;
    if (p.length > 0)
      out << " length " << p.length;
    out << ": " << p.what << '\n';
  }
  out << "segments " << report.segments << ", records " << report.records
      << ", log end " << report.log_end << ", consume queues " << report.queues
      << ", units " << report.units << ", problems " << report.problems.size()
      << (report.crashed ? ", not closed cleanly" : "") << ": "
      << (report.ok() ? "store OK" : "store DAMAGED") << '\n';
  return out.str();
}

} // namespace rmq::storage
