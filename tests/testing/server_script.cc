#include "testing/server_script.h"

#include <cstdio>

namespace idem::testing {

std::string ServerScriptUrl(const std::string& script) {
  std::string out;
  if (FILE* f = popen((script + " url").c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, f)) out += buf;
    pclose(f);
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace idem::testing
