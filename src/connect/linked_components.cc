// LinkedComponents: what `idem --version` says this program can open.
#include <algorithm>

#include "connect/known_schemes.h"

namespace idem::connect {
namespace {

template <class Opener>
void AddLinked(const SchemeTable<Opener>& table, std::vector<std::string>* out) {
  for (const auto& s : table.schemes) {
    const std::string name = Component(s.info);
    if (s.open != nullptr && std::find(out->begin(), out->end(), name) == out->end()) out->push_back(name);
  }
}

}  // namespace

std::vector<std::string> LinkedComponents() {
  std::vector<std::string> names;
  AddLinked(StoreSchemes(), &names);
  AddLinked(BrokerSchemes(), &names);
  AddLinked(FastFilterSchemes(), &names);
  return names;
}

}  // namespace idem::connect
