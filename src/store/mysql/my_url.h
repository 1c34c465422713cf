// Reading "mysql://USER:PASSWORD@HOST:PORT/DB?connect_timeout=S" into the
// parts mysql_real_connect takes. No server is contacted.
#pragma once

#include <string>

#include "idem/status.h"

namespace idem::mysql {

struct ConnectParams {
  std::string user;
  std::string password;
  std::string host;
  unsigned port = 3306;
  std::string database;
  int connect_timeout_s = 0;  // 0: not given in the URL
};

// mysql:// and mariadb:// URLs; user, password and database percent-decoded.
// An InvalidArgument says which part is wrong and what to write.
Result<ConnectParams> ParseMysqlUrl(const std::string& url);

}  // namespace idem::mysql
