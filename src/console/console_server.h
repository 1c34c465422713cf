// Console: the dead-letter console in the browser, mounted under /console on an
// httplib::Server — the service's HTTP port (`idem run`) or its own
// (`idem console`).
//
//   GET  /console/login, POST /console/login, POST /console/logout
//   GET  /console/                 the list (business key, topic, reason, attempts, failures, age), paged
//   GET  /console/dead/ID          headers and body, shown escaped
//   GET  /console/dead/ID/body     the body byte-exact (application/octet-stream)
//   POST /console/replay           ids (id=…, repeated) or all=1; back through the main queue
//   POST /console/purge            the same; answers with a confirmation page until confirm=yes
//   GET  /console/audit            the audit trail (audit_log.h)
//
// Rules every request meets: no session → 401 (page GETs: a redirect to the
// login form), and nothing changes; a POST needs the session's CSRF token (in
// its form body or the X-CSRF-Token header, never the URL) and an Origin (or
// Referer) of this host, else 403; its fields are read from the body only;
// replay and purge need the operator role, else 403, and ids that all name
// dead letters, else 404 (audited as not_found). Failed logins are throttled
// (login_throttle.h): 429 with Retry-After. Another method on a console path
// → 405 with Allow; another path → 404. Every response of the server, errors
// included, carries a Content-Security-Policy that allows no script at all. Logins, refusals and changes are logged through
// ConsoleSettings::log with the operator's name; secrets, session ids, CSRF
// tokens and bodies never are.
//
// Thread safety: the server calls handlers on its own threads; the broker and
// the audit store are used under one lock.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "console/audit_log.h"
#include "console/console_config.h"
#include "console/login_throttle.h"
#include "console/sessions.h"
#include "idem/broker.h"
#include "idem/env.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace idem::console {

// One log line: an event name and its fields (the service's JSON log).
using ConsoleLog = std::function<void(const std::string& event, const nlohmann::json& fields)>;

struct ConsoleSettings {
  ConsoleConfig config;
  std::string broker_url;  // whose dead letters are shown
  std::string store_url;   // where idem_audit lives
  ConsoleLog log;          // optional
};

class Console {
 public:
  // Opens the audit store (creating idem_audit); the broker is opened at the
  // first request that needs it, and again after it failed.
  static Result<std::unique_ptr<Console>> Open(ConsoleSettings settings, Env* env);
  ~Console();

  // Adds the routes above to `server`, and sets its post-routing handler (the
  // security headers on every response). The console must outlive the server's serving.
  void Mount(httplib::Server& server);

 private:
  Console(ConsoleSettings settings, Env* env, std::unique_ptr<Store> store, AuditLog audit);

  // The session of a request, or nullopt (and the response set to 401 or the
  // redirect). For a change (`form`: its body's fields) also the CSRF token
  // and the origin (403).
  std::optional<Session> Require(const httplib::Request& req, httplib::Response& res, bool page,
                                 const std::multimap<std::string, std::string>* form);
  // The broker's dead letters, opening the broker if needed; null (with the
  // error page set) when it cannot be opened or keeps none. REQUIRES: mu_ held.
  DeadLetters* DeadLettersOrError(httplib::Response& res, const Session& s);
  // The dead letter the path names, or nullopt with the error page set.
  std::optional<DeadLetter> OneDeadLetter(const httplib::Request& req, httplib::Response& res, const Session& s);
  void Log(const std::string& event, const nlohmann::json& fields);
  void Fail(httplib::Response& res, int status, const std::string& what, const Session* s);

  void LoginForm(const httplib::Request& req, httplib::Response& res);
  void Login(const httplib::Request& req, httplib::Response& res);
  void Logout(const httplib::Request& req, httplib::Response& res);
  void List(const httplib::Request& req, httplib::Response& res);
  void Detail(const httplib::Request& req, httplib::Response& res);
  void Body(const httplib::Request& req, httplib::Response& res);
  void Change(const httplib::Request& req, httplib::Response& res, bool purge);
  void Audit(const httplib::Request& req, httplib::Response& res);

  ConsoleSettings settings_;
  Env* env_;
  Sessions sessions_;
  LoginThrottle throttle_;
  std::mutex mu_;  // guards broker_, store_ and audit_
  std::unique_ptr<Broker> broker_;
  std::unique_ptr<Store> store_;
  AuditLog audit_;
};

}  // namespace idem::console
