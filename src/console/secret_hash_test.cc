#include "console/secret_hash.h"

#include <gtest/gtest.h>

namespace idem::console {
namespace {

TEST(SecretHashTest, TheRightSecretVerifiesAndOthersDoNot) {
  auto h = HashSecret("correct horse", kMinHashIterations);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(CheckHashFormat(*h), "");
  EXPECT_TRUE(VerifySecret("correct horse", *h));
  EXPECT_FALSE(VerifySecret("correct hors", *h));
  EXPECT_FALSE(VerifySecret("", *h));
}

TEST(SecretHashTest, SaltedSoTheSameSecretHashesDifferently) {
  auto a = HashSecret("s3cret-s3cret", kMinHashIterations), b = HashSecret("s3cret-s3cret", kMinHashIterations);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
  EXPECT_TRUE(VerifySecret("s3cret-s3cret", *b));
}

TEST(SecretHashTest, WeakOrMalformedHashesAreRefused) {
  EXPECT_NE(CheckHashFormat("plain-text-secret"), "");
  EXPECT_NE(CheckHashFormat("pbkdf2-sha256$1000$00$" + std::string(64, 'a')).find("fewer than"), std::string::npos);
  EXPECT_NE(CheckHashFormat("pbkdf2-sha256$600000$zz$" + std::string(64, 'a')), "");
  EXPECT_FALSE(VerifySecret("x", "pbkdf2-sha256$1000$00$" + std::string(64, 'a')));
  EXPECT_FALSE(HashSecret("").ok());
}

}  // namespace
}  // namespace idem::console
