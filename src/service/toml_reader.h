// TableReader: typed, checked reads from one TOML table of the configuration.
//
// Each getter marks its key as known; Finish() then rejects any key nobody
// asked for, so a misspelt option is an error rather than a silent default.
// Every error is a ConfigError whose text starts "FILE:LINE:COLUMN: " and says
// what was expected. ConfigError never leaves config.cc: ParseConfig turns it
// into an InvalidArgument Status.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "service/config.h"

namespace idem::service {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class TableReader {
 public:
  // `name` is how errors call the table: "[broker]", "[[consumer]] 2".
  TableReader(const toml::table& table, std::string path, std::string name);

  const std::string& name() const { return name_; }
  // "FILE:LINE:COLUMN" of the table itself, or of one node in it.
  std::string Where() const;
  std::string Where(const toml::node& node) const;
  [[noreturn]] void Fail(const toml::node* at, const std::string& what) const;

  bool Has(std::string_view key) const { return table_->contains(key); }
  const toml::node* Node(std::string_view key);  // nullptr when absent; marks the key known

  std::optional<std::string> String(std::string_view key);
  std::string RequiredString(std::string_view key, std::string_view what);
  int64_t Int(std::string_view key, int64_t fallback, int64_t lo, int64_t hi);
  bool Bool(std::string_view key, bool fallback);
  // One of `choices`; the error lists them.
  std::string Choice(std::string_view key, std::string fallback, const std::vector<std::string>& choices);
  std::vector<int64_t> IntArray(std::string_view key, std::vector<int64_t> fallback, int64_t lo, int64_t hi);
  std::vector<Located> StringArray(std::string_view key);

  std::optional<TableReader> Table(std::string_view key);
  std::vector<TableReader> TableArray(std::string_view key);

  // Rejects the first key no getter asked for, naming the keys this table takes.
  void Finish() const;

 private:
  const toml::table* table_;
  std::string path_;
  std::string name_;
  std::set<std::string, std::less<>> known_;
};

}  // namespace idem::service
