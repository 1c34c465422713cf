// Table and column names in the guards come from code, but they are spliced
// into SQL text, so each one is checked to be a plain identifier first: a typo
// or a name built from data fails loudly instead of changing the statement.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "idem/sql.h"
#include "idem/status.h"

namespace idem::guards {

// [A-Za-z_][A-Za-z0-9_]*, at most 63 bytes (PostgreSQL's limit).
bool IsSqlIdentifier(std::string_view name);

// OK when every name is an identifier; otherwise InvalidArgument naming the first bad one.
Status CheckIdentifiers(std::initializer_list<std::string_view> names);

// The limits the set-based guards cut a set by (InsertOnceRows, ChangeBalances,
// StateMachine::MoveRows). Parameters: below SQLite's default limit of 32766
// (PostgreSQL's and MySQL's is 65535). Keys of a CASE: an engine walks a CASE
// one WHEN after the other for every row it updates, so a statement's work
// grows with the square of its keys.
inline constexpr size_t kMaxParameters = 30000;
inline constexpr size_t kMaxCaseKeys = 128;

// "?, ?, ?" for n parameters (n >= 1).
std::string ParameterMarkers(size_t n);

}  // namespace idem::guards
