// UpdateIfVersion over a real SQLite store: stock with a version column.
#include <gtest/gtest.h>

#include "guards/guard_test_fixture.h"
#include "idem/guards.h"

namespace idem {
namespace {

const VersionedTable kStock{"stock", "sku", "version"};

class UpdateIfVersionTest : public guards::GuardTest {
 protected:
  void SetUp() override {
    Open("CREATE TABLE stock (sku VARCHAR(64) PRIMARY KEY, quantity BIGINT NOT NULL, version BIGINT NOT NULL);"
         "INSERT INTO stock VALUES ('A', 10, 3);");
  }

  std::pair<int64_t, int64_t> Read() {
    auto rows = tx_->Query("SELECT quantity, version FROM stock WHERE sku = 'A'", {});
    EXPECT_TRUE(rows.ok() && rows->size() == 1);
    return {AsInt((*rows)[0][0]), AsInt((*rows)[0][1])};
  }
};

TEST_F(UpdateIfVersionTest, WritesWhenTheVersionIsTheOneRead) {
  auto r = UpdateIfVersion(*tx_, kStock, std::string("A"), 3, {{"quantity", int64_t{9}}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, VersionedUpdate::kApplied);
  EXPECT_EQ(Read(), std::make_pair(int64_t{9}, int64_t{4}));
}

TEST_F(UpdateIfVersionTest, AStaleVersionWritesNothing) {
  ASSERT_TRUE(UpdateIfVersion(*tx_, kStock, std::string("A"), 3, {{"quantity", int64_t{9}}}).ok());
  // A second writer that read version 3 before the first write must not overwrite it.
  auto r = UpdateIfVersion(*tx_, kStock, std::string("A"), 3, {{"quantity", int64_t{9}}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, VersionedUpdate::kVersionMoved);
  EXPECT_EQ(Read(), std::make_pair(int64_t{9}, int64_t{4}));
}

TEST_F(UpdateIfVersionTest, MissingRowIsNotFound) {
  auto r = UpdateIfVersion(*tx_, kStock, std::string("B"), 0, {{"quantity", int64_t{1}}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, VersionedUpdate::kNotFound);
}

TEST_F(UpdateIfVersionTest, RefusesToSetTheVersionOrKeyOrNothing) {
  EXPECT_FALSE(UpdateIfVersion(*tx_, kStock, std::string("A"), 3, {{"version", int64_t{0}}}).ok());
  EXPECT_FALSE(UpdateIfVersion(*tx_, kStock, std::string("A"), 3, {{"sku", "B"}}).ok());
  EXPECT_FALSE(UpdateIfVersion(*tx_, kStock, std::string("A"), 3, {}).ok());
  EXPECT_EQ(Read(), std::make_pair(int64_t{10}, int64_t{3}));
}

}  // namespace
}  // namespace idem
