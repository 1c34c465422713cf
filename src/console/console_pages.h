// The console's pages as HTML strings (html.h escapes what they show).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "console/audit_log.h"
#include "console/sessions.h"
#include "idem/dead_letters.h"

namespace idem::console {

// How much of a dead letter the detail page shows: a body or header may be
// megabytes, and the page must stay small; the body downloads whole.
constexpr size_t kShownBodyBytes = 64 * 1024;
constexpr size_t kShownHeaderBytes = 4 * 1024;

std::string LoginPage(const std::string& message);
// `after`: the id this page starts after (0 for the first); `more`: a next page exists.
std::string ListPage(const std::vector<DeadLetter>& dead, bool more, int64_t now_ms, const Session& s, int64_t after);
std::string DetailPage(const DeadLetter& d, int64_t now_ms, const Session& s);
std::string ConfirmPurgePage(const std::vector<int64_t>& ids, const Session& s);
std::string ChangeDonePage(bool purge, int64_t changed, const std::vector<int64_t>& ids, const Session& s);
std::string AuditPage(const std::vector<AuditEntry>& rows, bool more, const Session& s);

}  // namespace idem::console
