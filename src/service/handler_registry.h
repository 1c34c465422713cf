// HandlerRegistry: C++ handlers that `idem run` can run by name.
//
// A configuration's `handlers = ["payments"]` names handler sets registered
// here by the program that embeds the service (the idem tool registers the
// payments example's). A set makes fresh handlers for each worker, so handlers
// with state of their own (a client connection) are never shared by threads.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "idem/env.h"
#include "idem/handler.h"
#include "idem/status.h"
#include "idem/store.h"

namespace idem::service {

struct HandlerSet {
  std::string description;  // one line, for `idem run --check` and errors
  // Makes the handlers of one worker. Called once per worker, on the thread
  // that starts the service; the handlers then run on that worker's thread.
  std::function<Result<std::vector<HandlerSpec>>(Env* env)> make;
  // Optional: creates the business tables the handlers need when they are
  // missing (CREATE TABLE IF NOT EXISTS). Run once at start, before any worker.
  std::function<Status(Store& store)> prepare;
};

class HandlerRegistry {
 public:
  // AlreadyExists when `name` is taken; InvalidArgument when `set.make` is empty.
  Status Add(const std::string& name, HandlerSet set);
  // nullptr when nothing is registered under `name`.
  const HandlerSet* Find(const std::string& name) const;
  // "payments, audit" — for errors that say what could have been meant.
  std::string Names() const;

 private:
  std::map<std::string, HandlerSet> sets_;
};

}  // namespace idem::service
