#include "source/kafka/member_slot.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace idem::kafka {
namespace {

// Kafka accepts [a-zA-Z0-9._-] in ids; anything else becomes '_'.
std::string Sanitized(std::string s) {
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  return s;
}

// More members of one group on one host than any deployment runs: a bound
// that turns a folder full of stuck locks into an error instead of a loop.
constexpr int kMaxSlots = 1024;

}  // namespace

Result<MemberSlot> MemberSlot::Take(const std::string& prefix, const std::string& group, const std::string& lock_dir) {
  std::error_code ec;
  std::filesystem::create_directories(lock_dir, ec);
  // Members of every user on the host share the folder, as /tmp is shared.
  if (!ec) (void)::chmod(lock_dir.c_str(), 01777);
  for (int slot = 1; slot <= kMaxSlots; ++slot) {
    const std::string file = lock_dir + "/idem-kafka-member." + Sanitized(group) + "." + Sanitized(prefix) + "." +
                             std::to_string(slot) + ".lock";
    // Read-only is enough for flock, and opens a lock file another user created;
    // never through a link someone put in the shared folder.
    const int fd = ::open(file.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0)
      return Status::Unavailable("Kafka: cannot open the member slot lock " + file + ": " + std::strerror(errno) +
                                 " (make the folder writable, set TMPDIR, or give static_membership=false)");
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return MemberSlot(fd, Sanitized(prefix) + "-" + std::to_string(slot));
    const int why = errno;
    ::close(fd);
    if (why != EWOULDBLOCK)
      return Status::Unavailable("Kafka: cannot lock the member slot " + file + ": " + std::strerror(why));
  }
  return Status::Unavailable("Kafka: more than " + std::to_string(kMaxSlots) + " members of group " + group +
                             " on this host hold a slot in " + lock_dir + "; give static_membership=false");
}

MemberSlot& MemberSlot::operator=(MemberSlot&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    id_ = std::move(o.id_);
    o.fd_ = -1;
  }
  return *this;
}

MemberSlot::~MemberSlot() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

std::string HostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "idem";
  return name;
}

std::string DefaultSlotDir() {
  std::error_code ec;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  return (tmp / "idem-kafka-members").string();
}

}  // namespace idem::kafka
