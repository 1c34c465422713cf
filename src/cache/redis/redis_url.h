// Parsing redis://[[user]:password@]host[:port][/db] URLs.
#pragma once

#include <string>

#include "idem/status.h"

namespace idem::redis {

struct Endpoint {
  std::string host;
  int port = 6379;
  std::string user;      // empty: AUTH with the password only (the default user)
  std::string password;  // empty: no AUTH
  int db = 0;
};

Result<Endpoint> ParseRedisUrl(const std::string& url);

}  // namespace idem::redis
