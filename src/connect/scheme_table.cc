#include "connect/scheme_table.h"

namespace idem::connect {

std::string RedactedUrl(std::string_view url) {
  std::string out(url);
  if (const size_t scheme = out.find("://"); scheme != std::string::npos) {
    const size_t host = out.find_first_of("/?#", scheme + 3);
    const size_t at = out.rfind('@', host == std::string::npos ? std::string::npos : host);
    if (at != std::string::npos && at > scheme) {
      const size_t colon = out.find(':', scheme + 3);
      if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  for (size_t p = out.find("password="); p != std::string::npos; p = out.find("password=", p + 1)) {
    const size_t value = p + 9, end = out.find_first_of("&# ", value);
    out.replace(value, (end == std::string::npos ? out.size() : end) - value, "***");
  }
  return out;
}

int MatchScheme(const std::vector<const SchemeInfo*>& infos, std::string_view url) {
  for (size_t i = 0; i < infos.size(); ++i)
    for (const std::string& prefix : infos[i]->prefixes)
      if (url.substr(0, prefix.size()) == prefix) return static_cast<int>(i);
  // "scheme://" that no entry claims is an unknown scheme, never a file name.
  if (url.find("://") != std::string_view::npos) return -1;
  for (size_t i = 0; i < infos.size(); ++i)
    if (infos[i]->takes_bare_path) return static_cast<int>(i);
  return -1;
}

Status UnknownScheme(std::string_view kind, const std::vector<const SchemeInfo*>& infos, std::string_view url) {
  std::string known;
  for (const SchemeInfo* info : infos) {
    if (!known.empty()) known += ", ";
    known += info->form;
    if (info->takes_bare_path) known += " (or a bare file path)";
  }
  return Status::InvalidArgument("unsupported " + std::string(kind) + " URL '" + RedactedUrl(url) +
                                 "': the known schemes are " + known);
}

Status NotBuilt(std::string_view kind, const SchemeInfo& info, std::string_view url) {
  return Status::InvalidArgument(std::string(kind) + " URL '" + RedactedUrl(url) + "' needs " + info.backend +
                                 ", which this build leaves out: configure with -D" + info.cmake_option +
                                 "=ON and build again");
}

}  // namespace idem::connect
