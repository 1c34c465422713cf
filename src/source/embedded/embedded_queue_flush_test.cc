// Which of the embedded queue's commits wait for the disk, counted at the
// SQLite VFS: every xSync call is a flush the consumer waits for.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <cstring>

#include "idem/embedded_queue.h"
#include "sim/sim_env.h"
#include "testing/test_util.h"

namespace idem {
namespace {

// A VFS that forwards everything to the default one and counts the flushes.
struct CountingFile {
  sqlite3_file base;
  sqlite3_file* real;  // the default VFS's file, allocated right after this struct
};

std::atomic<int> flushes{0};
sqlite3_vfs* real_vfs = nullptr;
sqlite3_vfs counting_vfs;

sqlite3_file* Real(sqlite3_file* f) { return reinterpret_cast<CountingFile*>(f)->real; }

int Close(sqlite3_file* f) { return Real(f)->pMethods->xClose(Real(f)); }
int Read(sqlite3_file* f, void* b, int n, sqlite3_int64 o) { return Real(f)->pMethods->xRead(Real(f), b, n, o); }
int Write(sqlite3_file* f, const void* b, int n, sqlite3_int64 o) {
  return Real(f)->pMethods->xWrite(Real(f), b, n, o);
}
int Truncate(sqlite3_file* f, sqlite3_int64 n) { return Real(f)->pMethods->xTruncate(Real(f), n); }
int Sync(sqlite3_file* f, int flags) {
  ++flushes;
  return Real(f)->pMethods->xSync(Real(f), flags);
}
int FileSize(sqlite3_file* f, sqlite3_int64* n) { return Real(f)->pMethods->xFileSize(Real(f), n); }
int Lock(sqlite3_file* f, int l) { return Real(f)->pMethods->xLock(Real(f), l); }
int Unlock(sqlite3_file* f, int l) { return Real(f)->pMethods->xUnlock(Real(f), l); }
int CheckLock(sqlite3_file* f, int* out) { return Real(f)->pMethods->xCheckReservedLock(Real(f), out); }
int Control(sqlite3_file* f, int op, void* arg) { return Real(f)->pMethods->xFileControl(Real(f), op, arg); }
int SectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
int Device(sqlite3_file* f) { return Real(f)->pMethods->xDeviceCharacteristics(Real(f)); }
int ShmMap(sqlite3_file* f, int region, int size, int extend, void volatile** out) {
  return Real(f)->pMethods->xShmMap(Real(f), region, size, extend, out);
}
int ShmLock(sqlite3_file* f, int offset, int n, int flags) {
  return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags);
}
void ShmBarrier(sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); }
int ShmUnmap(sqlite3_file* f, int del) { return Real(f)->pMethods->xShmUnmap(Real(f), del); }
// No memory-mapped reads: every page goes through Read.
int Fetch(sqlite3_file*, sqlite3_int64, int, void** out) {
  *out = nullptr;
  return SQLITE_OK;
}
int Unfetch(sqlite3_file*, sqlite3_int64, void*) { return SQLITE_OK; }

const sqlite3_io_methods kMethods = {3,          Close,      Read,     Write,    Truncate, Sync,
                                     FileSize,   Lock,       Unlock,   CheckLock, Control, SectorSize,
                                     Device,     ShmMap,     ShmLock,  ShmBarrier, ShmUnmap, Fetch,
                                     Unfetch};

int Open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out_flags) {
  auto* file = reinterpret_cast<CountingFile*>(f);
  file->real = reinterpret_cast<sqlite3_file*>(file + 1);
  file->base.pMethods = nullptr;
  int rc = real_vfs->xOpen(real_vfs, name, file->real, flags, out_flags);
  if (file->real->pMethods) file->base.pMethods = &kMethods;
  return rc;
}

class EmbeddedQueueFlushTest : public ::testing::Test {
 protected:
  void SetUp() override {
    real_vfs = sqlite3_vfs_find(nullptr);
    std::memcpy(&counting_vfs, real_vfs, sizeof counting_vfs);
    counting_vfs.zName = "idem-counting";
    counting_vfs.szOsFile = static_cast<int>(sizeof(CountingFile)) + real_vfs->szOsFile;
    counting_vfs.xOpen = Open;
    ASSERT_EQ(sqlite3_vfs_register(&counting_vfs, /*makeDflt=*/1), SQLITE_OK);
  }
  void TearDown() override {
    queue_.reset();
    sqlite3_vfs_register(real_vfs, /*makeDflt=*/1);
    sqlite3_vfs_unregister(&counting_vfs);
  }

  // Flushes made by `settle`.
  template <typename F>
  int FlushesOf(F settle) {
    flushes = 0;
    EXPECT_TRUE(settle().ok());
    return flushes.load();
  }

  testing::TempDir dir_;
  sim::SimEnv env_{/*seed=*/7};
  std::unique_ptr<EmbeddedQueue> queue_;
};

TEST_F(EmbeddedQueueFlushTest, AcksAloneAreNotFlushedButRetriesAndParksAre) {
  auto q = EmbeddedQueue::Open(dir_.File("q.db"), {}, &env_);  // durable against power loss: the default
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  queue_ = std::move(*q);
  std::vector<Message> batch(4);
  for (Message& m : batch) {
    m.topic = "pay";
    m.payload = "{}";
  }
  ASSERT_TRUE(queue_->PublishBatch(batch).ok());
  flushes = 0;
  auto polled = queue_->Poll(4, 0);
  ASSERT_TRUE(polled.ok() && polled->size() == 4u);
  EXPECT_EQ(flushes.load(), 0) << "the lease is not flushed";
  const std::vector<Message>& m = *polled;

  EXPECT_EQ(FlushesOf([&] {
              return queue_->Settle({{&m[0], Settlement::Kind::kAck}, {&m[1], Settlement::Kind::kAck}});
            }),
            0)
      << "a lost ack only delivers an applied message again, which the guard absorbs";
  Settlement retry{&m[2], Settlement::Kind::kRetry};
  retry.delay_ms = 1000;
  EXPECT_GT(FlushesOf([&] { return queue_->Settle({retry}); }), 0);
  EXPECT_GT(FlushesOf([&] { return queue_->Settle({{&m[3], Settlement::Kind::kPark}}); }), 0);

  // Not flushed is not lost: the acked messages are gone for a consumer reopening the file.
  queue_.reset();
  auto again = EmbeddedQueue::Open(dir_.File("q.db"), {}, &env_);
  ASSERT_TRUE(again.ok());
  auto stats = (*again)->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->ready + stats->delayed + stats->in_flight, 1) << "only the retried message waits";
  EXPECT_EQ(stats->dead, 1);
}

}  // namespace
}  // namespace idem
