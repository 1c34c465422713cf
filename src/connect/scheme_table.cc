#include "connect/scheme_table.h"

#include <algorithm>
#include <cctype>

namespace idem::connect {
namespace {

// The scheme `url` starts with, as written: "sqlit:", "oracle://"; "" when it
// does not look like one.
std::string WrittenScheme(std::string_view url) {
  if (!LooksLikeScheme(url)) return "";
  const size_t colon = url.find(':');
  return std::string(url.substr(0, colon + (url.substr(colon, 3) == "://" ? 3 : 1)));
}

// "sqlite" of "sqlite:", "postgresql" of "postgresql://", lower-cased.
std::string SchemeWord(std::string_view scheme) {
  std::string word(scheme.substr(0, scheme.find(':')));
  for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return word;
}

// Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`:
// the optimal string alignment distance, so "kafak" is one edit from "kafka".
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

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
  // "user:password@host/…" written without its scheme: still no password in errors.
  if (out.find("://") == std::string::npos) {
    const size_t at = out.find('@'), colon = out.find(':');
    if (at != std::string::npos && at < out.find('/') && colon < at) out.replace(colon + 1, at - colon - 1, "***");
  }
  for (size_t p = out.find("password="); p != std::string::npos; p = out.find("password=", p + 1)) {
    const size_t value = p + 9, end = out.find_first_of("&# ", value);
    out.replace(value, (end == std::string::npos ? out.size() : end) - value, "***");
  }
  return out;
}

bool LooksLikeScheme(std::string_view url) {
  const size_t colon = url.find(':');
  return colon != std::string_view::npos && colon < url.find('/');
}

int MatchScheme(const std::vector<const SchemeInfo*>& infos, std::string_view url) {
  for (size_t i = 0; i < infos.size(); ++i)
    for (const std::string& prefix : infos[i]->prefixes)
      if (url.substr(0, prefix.size()) == prefix) return static_cast<int>(i);
  // "sqlit:store.db" or "scheme://" that no entry claims is an unknown scheme,
  // never a file name: taking it for one would open a new, empty file.
  if (LooksLikeScheme(url)) return -1;
  for (size_t i = 0; i < infos.size(); ++i)
    if (infos[i]->takes_bare_path) return static_cast<int>(i);
  return -1;
}

std::string NearestScheme(const std::vector<const SchemeInfo*>& infos, std::string_view url) {
  const std::string written = SchemeWord(WrittenScheme(url));
  if (written.empty() || written.size() > 32) return "";  // no scheme is that long: not a typo of one
  std::string best;
  size_t best_distance = 0;
  for (const SchemeInfo* info : infos)
    for (const std::string& prefix : info->prefixes) {
      const std::string word = SchemeWord(prefix);
      const size_t d = EditDistance(written, word);
      // A third of the word's letters (at least one): "psql" is not a typo of "mysql".
      if (d > std::max<size_t>(1, word.size() / 3)) continue;
      if (best.empty() || d < best_distance) best = prefix, best_distance = d;
    }
  return best;
}

Status UnknownScheme(std::string_view kind, const std::vector<const SchemeInfo*>& infos, std::string_view url) {
  std::string known, bare;
  for (const SchemeInfo* info : infos) {
    if (!known.empty()) known += ", ";
    known += info->form;
    if (info->prefixes.size() > 1) {
      known += " (or";
      for (size_t i = 1; i < info->prefixes.size(); ++i) known += " " + info->prefixes[i];
      known += ")";
    }
    if (info->takes_bare_path)
      bare = "; a path with no ':' before its first '/' is a file of " + info->backend +
             " (write ./NAME for a file whose name has a ':')";
  }
  const std::string written = WrittenScheme(url);
  std::string what =
      written.empty() ? "it names no scheme" : "'" + written + "' is not a " + std::string(kind) + " scheme";
  if (const std::string nearest = NearestScheme(infos, url); !nearest.empty())
    what += " (did you mean `" + nearest + "`?)";
  return Status::InvalidArgument("unsupported " + std::string(kind) + " URL '" + RedactedUrl(url) + "': " + what +
                                 "; the " + std::string(kind) + " schemes are " + known + bare);
}

std::string Component(const SchemeInfo& info) {
  if (info.cmake_option.empty()) return "sqlite";
  std::string name = info.cmake_option.substr(info.cmake_option.rfind('_') + 1);  // IDEM_WITH_POSTGRES
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

Status NotBuilt(std::string_view kind, const SchemeInfo& info, std::string_view url) {
  // A program leaves a backend out by not linking it, or because idem was built without it.
  return Status::InvalidArgument(std::string(kind) + " URL '" + RedactedUrl(url) + "' needs " + info.backend +
                                 ", which this build leaves out: link idem::" + Component(info) +
                                 " (built when idem is configured with -D" + info.cmake_option + "=ON)");
}

}  // namespace idem::connect
