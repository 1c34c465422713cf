#include "connect/scheme_table.h"

namespace idem::connect {

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
  return Status::InvalidArgument("unsupported " + std::string(kind) + " URL '" + std::string(url) +
                                 "': the known schemes are " + known);
}

Status NotBuilt(std::string_view kind, const SchemeInfo& info, std::string_view url) {
  return Status::InvalidArgument(std::string(kind) + " URL '" + std::string(url) + "' needs " + info.backend +
                                 ", which this build leaves out: configure with -D" + info.cmake_option +
                                 "=ON and build again");
}

}  // namespace idem::connect
