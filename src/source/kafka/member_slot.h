// MemberSlot: the group.instance.id of a static group member (KIP-345), one
// that stays the same when the member restarts, so the group coordinator gives
// a restarted member its partitions back instead of rebalancing the group.
//
// Two members of one group on one host must never share an id (the broker
// would fence one of them), while a member that restarts must get its old id
// back. Both come from a slot number: a member takes the lowest slot 1, 2, …
// of its group and prefix that no living member on the host holds, as an
// exclusive lock (flock) on DIR/idem-kafka-member.<GROUP>.<PREFIX>.<N>.lock. The kernel drops
// the lock when the member closes or its process dies, so a restart finds its
// slot free again. The id is "<PREFIX>-<N>", PREFIX being the host name unless
// the URL's instance_id= says otherwise.
#pragma once

#include <string>

#include "idem/status.h"

namespace idem::kafka {

class MemberSlot {
 public:
  // Takes the lowest free slot of `group` and `prefix` in `lock_dir` (created if missing).
  // Fails (Unavailable) when no lock file can be opened there.
  static Result<MemberSlot> Take(const std::string& prefix, const std::string& group, const std::string& lock_dir);

  MemberSlot(MemberSlot&& o) noexcept : fd_(o.fd_), id_(std::move(o.id_)) { o.fd_ = -1; }
  MemberSlot& operator=(MemberSlot&& o) noexcept;
  MemberSlot(const MemberSlot&) = delete;
  MemberSlot& operator=(const MemberSlot&) = delete;
  ~MemberSlot();  // frees the slot

  // "<prefix>-<slot>", restricted to Kafka's id characters [a-zA-Z0-9._-].
  const std::string& id() const { return id_; }

 private:
  MemberSlot(int fd, std::string id) : fd_(fd), id_(std::move(id)) {}
  int fd_ = -1;
  std::string id_;
};

// This host's name, the default prefix of an instance id.
std::string HostName();

// The folder of the slot locks: $TMPDIR (or /tmp) /idem-kafka-members.
std::string DefaultSlotDir();

}  // namespace idem::kafka
