#include "store/postgres/pg_placeholders.h"

namespace idem::pg {
namespace {

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

// Each Skip* returns the index just past the construct starting at `i`.

size_t SkipStringLiteral(std::string_view s, size_t i) {
  // E'…' strings take backslash escapes; standard strings only double the quote.
  const bool escapes = i > 0 && (s[i - 1] == 'E' || s[i - 1] == 'e') && (i < 2 || !IsIdentChar(s[i - 2]));
  for (size_t j = i + 1; j < s.size(); ++j) {
    if (escapes && s[j] == '\\') {
      ++j;
    } else if (s[j] == '\'') {
      if (j + 1 < s.size() && s[j + 1] == '\'') ++j;
      else return j + 1;
    }
  }
  return s.size();
}

size_t SkipQuotedIdentifier(std::string_view s, size_t i) {
  for (size_t j = i + 1; j < s.size(); ++j) {
    if (s[j] != '"') continue;
    if (j + 1 < s.size() && s[j + 1] == '"') ++j;
    else return j + 1;
  }
  return s.size();
}

size_t SkipLineComment(std::string_view s, size_t i) {
  size_t end = s.find('\n', i);
  return end == std::string_view::npos ? s.size() : end + 1;
}

size_t SkipBlockComment(std::string_view s, size_t i) {
  int depth = 0;  // PostgreSQL block comments nest
  for (size_t j = i; j + 1 < s.size(); ++j) {
    if (s[j] == '/' && s[j + 1] == '*') {
      ++depth;
      ++j;
    } else if (s[j] == '*' && s[j + 1] == '/') {
      ++j;
      if (--depth == 0) return j + 1;
    }
  }
  return s.size();
}

// $tag$ … $tag$; returns i when `$` here does not open a dollar quote ($1 is a parameter).
size_t SkipDollarQuote(std::string_view s, size_t i) {
  if (i > 0 && IsIdentChar(s[i - 1])) return i;
  size_t j = i + 1;
  if (j < s.size() && s[j] >= '0' && s[j] <= '9') return i;
  while (j < s.size() && IsIdentChar(s[j])) ++j;
  if (j >= s.size() || s[j] != '$') return i;
  std::string_view tag = s.substr(i, j - i + 1);
  size_t end = s.find(tag, j + 1);
  return end == std::string_view::npos ? s.size() : end + tag.size();
}

}  // namespace

TranslatedSql TranslatePlaceholders(std::string_view sql) {
  TranslatedSql out;
  out.text.reserve(sql.size() + 16);
  size_t i = 0;
  while (i < sql.size()) {
    const char c = sql[i];
    const char next = i + 1 < sql.size() ? sql[i + 1] : '\0';
    size_t end = i;
    if (c == '\'') end = SkipStringLiteral(sql, i);
    else if (c == '"') end = SkipQuotedIdentifier(sql, i);
    else if (c == '-' && next == '-') end = SkipLineComment(sql, i);
    else if (c == '/' && next == '*') end = SkipBlockComment(sql, i);
    else if (c == '$') end = SkipDollarQuote(sql, i);
    if (end > i) {
      out.text.append(sql.substr(i, end - i));
      i = end;
      continue;
    }
    if (c == '?') {
      out.text += '$';
      out.text += std::to_string(++out.placeholders);
    } else {
      out.text += c;
    }
    ++i;
  }
  return out;
}

}  // namespace idem::pg
