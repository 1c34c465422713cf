// A wiring table: which backend opens a URL, chosen by the URL's scheme.
//
// Each table lists every scheme idem knows, whether this build has its
// backend or not: an entry whose backend was left out has no opener, so its
// URL gets an error naming the CMake option that builds it instead of the
// "unsupported" error an unknown scheme gets.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "idem/status.h"

namespace idem::connect {

// What a table says about one scheme, independent of what it opens.
struct SchemeInfo {
  std::vector<std::string> prefixes;  // URL starts that select it, e.g. "postgresql://", "postgres://"
  std::string form;                   // how its URLs look, for errors: "postgresql://USER@HOST:PORT/DB"
  std::string backend;                // what it opens, for errors: "the PostgreSQL store"
  std::string cmake_option;           // the option that builds it, e.g. "IDEM_WITH_POSTGRES"; empty: always built
  bool takes_bare_path = false;       // a plain file path (see MatchScheme) belongs to this scheme
};

template <class Opener>
struct Scheme {
  SchemeInfo info;
  Opener open = nullptr;  // null: this build leaves the backend out
};

template <class Opener>
struct SchemeTable {
  std::string kind;  // "store", "broker", "fast filter": for errors
  std::vector<Scheme<Opener>> schemes;
};

// `url` for an error message: the password of "scheme://user:password@host"
// and the value of any "password=" parameter become "***". Errors end up in
// logs; the URL's other parts are what the reader needs to fix it.
std::string RedactedUrl(std::string_view url);

// True when `url` starts like a scheme: it has a ':' before its first '/'
// ("sqlit:store.db", "sqlte:/abs/path", "localhost:6379"). Such a URL is never
// taken for a file path, so a typo'd scheme cannot open a new file named after it.
bool LooksLikeScheme(std::string_view url);

// The index of the scheme `url` selects in `infos`, or -1 when none does. A
// URL that starts with no entry's prefix selects the entry that takes bare
// paths, unless it LooksLikeScheme.
int MatchScheme(const std::vector<const SchemeInfo*>& infos, std::string_view url);

// The prefix of `infos` nearest to the scheme `url` starts with ("sqlite:" for
// "sqlit:x.db"), or "" when none is near enough to be a likely typo.
std::string NearestScheme(const std::vector<const SchemeInfo*>& infos, std::string_view url);

// "unsupported store URL 'sqlit:x.db': 'sqlit:' is not a store scheme; did you
// mean `sqlite:`? The store schemes are sqlite:PATH, postgresql://…, …".
Status UnknownScheme(std::string_view kind, const std::vector<const SchemeInfo*>& infos, std::string_view url);

// InvalidArgument (UnknownScheme) unless `url` selects a scheme of `table`,
// whether this build has its backend or not.
template <class Opener>
Status CheckScheme(const SchemeTable<Opener>& table, std::string_view url) {
  std::vector<const SchemeInfo*> infos;
  for (const auto& s : table.schemes) infos.push_back(&s.info);
  return MatchScheme(infos, url) < 0 ? UnknownScheme(table.kind, infos, url) : Status::OK();
}

// The package component (and target idem::NAME) of a scheme's backend:
// "sqlite" for the always-built ones, "postgres" for IDEM_WITH_POSTGRES.
std::string Component(const SchemeInfo& info);

// "store URL 'x' needs the PostgreSQL store, which this build leaves out: link
// idem::postgres (built when idem is configured with -DIDEM_WITH_POSTGRES=ON)".
Status NotBuilt(std::string_view kind, const SchemeInfo& info, std::string_view url);

// The opener for `url`, or an InvalidArgument that says which scheme to use or
// which CMake option builds the backend the URL asks for.
template <class Opener>
Result<Opener> FindOpener(const SchemeTable<Opener>& table, std::string_view url) {
  std::vector<const SchemeInfo*> infos;
  infos.reserve(table.schemes.size());
  for (const auto& s : table.schemes) infos.push_back(&s.info);
  const int i = MatchScheme(infos, url);
  if (i < 0) return UnknownScheme(table.kind, infos, url);
  const Scheme<Opener>& scheme = table.schemes[static_cast<size_t>(i)];
  if (scheme.open == nullptr) return NotBuilt(table.kind, scheme.info, url);
  return scheme.open;
}

}  // namespace idem::connect
