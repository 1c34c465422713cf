// Translating the `?` placeholders of SqlTx into PostgreSQL's $1, $2, …
// Only a `?` outside string literals, quoted identifiers, dollar-quoted bodies
// and comments is a placeholder; the values themselves are always bound.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace idem::pg {

struct TranslatedSql {
  std::string text;
  size_t placeholders = 0;  // how many `?` were replaced
};

TranslatedSql TranslatePlaceholders(std::string_view sql);

}  // namespace idem::pg
