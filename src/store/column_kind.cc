#include "store/column_kind.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace idem {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool OneOf(const std::string& s, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

}  // namespace

TableColumn::Kind SqliteColumnKind(std::string_view declared_type) {
  const std::string t = Lower(declared_type);
  auto has = [&](std::string_view part) { return t.find(part) != std::string::npos; };
  if (has("int")) return TableColumn::Kind::kInteger;
  if (has("char") || has("clob") || has("text")) return TableColumn::Kind::kText;
  if (has("blob")) return TableColumn::Kind::kBlob;
  if (t.find_first_not_of(" \t") == std::string::npos) return TableColumn::Kind::kAny;
  if (has("real") || has("floa") || has("doub")) return TableColumn::Kind::kReal;
  return TableColumn::Kind::kDecimal;
}

TableColumn::Kind PostgresColumnKind(std::string_view data_type) {
  const std::string t = Lower(data_type);
  if (OneOf(t, {"smallint", "integer", "bigint"})) return TableColumn::Kind::kInteger;
  if (t == "numeric") return TableColumn::Kind::kDecimal;
  if (OneOf(t, {"real", "double precision"})) return TableColumn::Kind::kReal;
  if (OneOf(t, {"text", "character varying", "character", "citext"})) return TableColumn::Kind::kText;
  if (t == "bytea") return TableColumn::Kind::kBlob;
  return TableColumn::Kind::kOther;
}

TableColumn::Kind MySqlColumnKind(std::string_view data_type) {
  const std::string t = Lower(data_type);
  if (OneOf(t, {"tinyint", "smallint", "mediumint", "int", "integer", "bigint"})) return TableColumn::Kind::kInteger;
  if (OneOf(t, {"decimal", "numeric"})) return TableColumn::Kind::kDecimal;
  if (OneOf(t, {"float", "double", "real"})) return TableColumn::Kind::kReal;
  if (OneOf(t, {"char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set"}))
    return TableColumn::Kind::kText;
  if (OneOf(t, {"binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob"})) return TableColumn::Kind::kBlob;
  return TableColumn::Kind::kOther;
}

std::optional<std::vector<TableColumn>> ColumnsFromRows(const Rows& rows, TableColumn::Kind (*kind_of)(std::string_view)) {
  if (rows.empty()) return std::nullopt;
  std::vector<TableColumn> out;
  out.reserve(rows.size());
  for (const Row& r : rows) {
    TableColumn c;
    c.name = r.size() > 0 ? AsText(r[0]) : "";
    c.declared_type = r.size() > 1 ? AsText(r[1]) : "";
    c.kind = kind_of(c.declared_type);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace idem
