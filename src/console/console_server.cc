#include "console/console_server.h"

#include <httplib.h>

#include <regex>
#include <set>

#include "connect/scheme_table.h"
#include "console/audited_change.h"
#include "console/console_pages.h"
#include "console/html.h"
#include "console/secret_hash.h"

namespace idem::console {
namespace {

constexpr const char* kCookie = "idem_session";
constexpr const char* kCsrfHeader = "X-CSRF-Token";
constexpr size_t kPageSize = 50;

// No script may run on these pages, whatever a dead letter contains; forms post
// only here; no other site may frame them (clickjacking). Set on every response
// of the server, errors included (Mount).
void SecurityHeaders(httplib::Response& res) {
  res.set_header("Content-Security-Policy",
                 "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; "
                 "frame-ancestors 'none'; base-uri 'none'");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "same-origin");
  res.set_header("Cache-Control", "no-store");
}

void Html(httplib::Response& res, int status, const std::string& page) {
  res.status = status;
  res.set_content(page, "text/html; charset=utf-8");
}

std::string CookieValue(const httplib::Request& req, const std::string& name) {
  const std::string header = req.get_header_value("Cookie");
  size_t at = 0;
  while (at < header.size()) {
    size_t end = header.find(';', at);
    if (end == std::string::npos) end = header.size();
    std::string part = header.substr(at, end - at);
    part.erase(0, part.find_first_not_of(' '));
    if (part.rfind(name + "=", 0) == 0) return part.substr(name.size() + 1);
    at = end + 1;
  }
  return {};
}

// A state-changing request must come from a page of this console: the browser
// names the page's origin in Origin (or, failing that, Referer).
bool SameOrigin(const httplib::Request& req) {
  const std::string host = req.get_header_value("Host");
  if (host.empty()) return false;
  const std::string origin = req.get_header_value("Origin");
  if (!origin.empty()) return origin == "http://" + host || origin == "https://" + host;
  const std::string referer = req.get_header_value("Referer");
  return referer.rfind("http://" + host + "/", 0) == 0 || referer.rfind("https://" + host + "/", 0) == 0;
}

// The fields of a POST's form body, never the URL's query: a token or a secret
// in a URL is kept in logs and history and sent on in Referer headers.
httplib::Params FormFields(const httplib::Request& req) {
  httplib::Params fields;
  if (req.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) == 0)
    httplib::detail::parse_query_text(req.body, fields);
  return fields;
}

std::string Field(const httplib::Params& fields, const std::string& name) {
  auto it = fields.find(name);
  return it == fields.end() ? "" : it->second;
}

bool SameToken(const std::string& a, const std::string& b) {
  if (a.size() != b.size() || a.empty()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// A non-negative integer parameter, or nullopt.
std::optional<int64_t> IdParam(const std::string& text) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoll(text);
}

std::string Signed(const Session& s) { return s.who.name + " (" + RoleName(s.who.role) + ")"; }

}  // namespace

Result<std::unique_ptr<Console>> Console::Open(ConsoleSettings settings, Env* env) {
  auto store = OpenStore(settings.store_url, env);
  if (!store.ok()) return Status::Unavailable("the console cannot open the store for its audit: " + store.status().ToString());
  auto audit = AuditLog::Open(store->get());
  if (!audit.ok()) return audit.status();
  return std::unique_ptr<Console>(new Console(std::move(settings), env, std::move(*store), std::move(*audit)));
}

Console::Console(ConsoleSettings settings, Env* env, std::unique_ptr<Store> store, AuditLog audit)
    : settings_(std::move(settings)),
      env_(env),
      sessions_(env, settings_.config.session_ttl_ms),
      throttle_(env),
      store_(std::move(store)),
      audit_(std::move(audit)) {}

Console::~Console() = default;

void Console::Mount(httplib::Server& server) {
  using Req = const httplib::Request&;
  using Res = httplib::Response&;
  struct Route {
    const char* method;
    std::string pattern;
    httplib::Server::Handler handle;
  };
  const std::vector<Route> routes = {
      {"GET", "/console", [](Req, Res res) { res.set_redirect("/console/", 303); }},
      {"GET", "/console/login", [this](Req q, Res r) { LoginForm(q, r); }},
      {"POST", "/console/login", [this](Req q, Res r) { Login(q, r); }},
      {"POST", "/console/logout", [this](Req q, Res r) { Logout(q, r); }},
      {"GET", "/console/", [this](Req q, Res r) { List(q, r); }},
      {"GET", R"(/console/dead/(\d+))", [this](Req q, Res r) { Detail(q, r); }},
      {"GET", R"(/console/dead/(\d+)/body)", [this](Req q, Res r) { Body(q, r); }},
      {"POST", "/console/replay", [this](Req q, Res r) { Change(q, r, false); }},
      {"POST", "/console/purge", [this](Req q, Res r) { Change(q, r, true); }},
      {"GET", "/console/audit", [this](Req q, Res r) { Audit(q, r); }},
  };
  std::vector<std::pair<std::string, std::regex>> served;
  for (const Route& r : routes) {
    if (std::string(r.method) == "GET") server.Get(r.pattern, r.handle);
    else server.Post(r.pattern, r.handle);
    served.emplace_back(r.method, std::regex(r.pattern));
  }
  // Any other request under /console: 405 with the methods its path has, or 404.
  auto unserved = [this, served](Req req, Res res) {
    std::string allow;
    for (const auto& [method, pattern] : served)
      if (std::regex_match(req.path, pattern) && allow.find(method) == std::string::npos)
        allow += (allow.empty() ? "" : ", ") + method;
    if (allow.empty()) return Fail(res, 404, "There is no console page at this address.", nullptr);
    res.set_header("Allow", allow);
    Fail(res, 405, req.method + " is not how this page is used (it takes " + allow + ").", nullptr);
  };
  const std::string anywhere = "/console(/.*)?";
  server.Get(anywhere, unserved);
  server.Post(anywhere, unserved);
  server.Put(anywhere, unserved);
  server.Patch(anywhere, unserved);
  server.Delete(anywhere, unserved);
  server.Options(anywhere, unserved);
  server.set_post_routing_handler([](Req, Res res) { SecurityHeaders(res); });
}

std::optional<Session> Console::Require(const httplib::Request& req, httplib::Response& res, bool page,
                                        const httplib::Params* form) {
  const bool changes = form != nullptr;
  std::optional<Session> s = sessions_.Find(CookieValue(req, kCookie));
  if (!s) {
    if (page) {
      res.set_redirect("/console/login", 303);
    } else {
      Html(res, 401, Page("Log in first", "<p class=\"error\">This needs a console login; nothing was changed.</p>"
                                          "<p><a href=\"/console/login\">Log in</a></p>"));
    }
    return std::nullopt;
  }
  if (changes && !SameOrigin(req)) {
    Log("console_refused", {{"operator", s->who.name}, {"path", req.path}, {"why", "not same-origin"}});
    Fail(res, 403, "Refused: this request did not come from a page of this console (Origin/Referer); nothing was changed.",
         &*s);
    return std::nullopt;
  }
  // A script-less form sends the token in its body; a client may send it as a header instead.
  const std::string token =
      req.has_header(kCsrfHeader) ? req.get_header_value(kCsrfHeader) : changes ? Field(*form, "csrf") : "";
  if (changes && !SameToken(token, s->csrf)) {
    Log("console_refused", {{"operator", s->who.name}, {"path", req.path}, {"why", "CSRF token missing or stale"}});
    Fail(res, 403, "Refused: the form's CSRF token is missing or stale; reload the page. Nothing was changed.", &*s);
    return std::nullopt;
  }
  return s;
}

void Console::Log(const std::string& event, const nlohmann::json& fields) {
  if (settings_.log) settings_.log(event, fields);
}

void Console::Fail(httplib::Response& res, int status, const std::string& what, const Session* s) {
  const char* title = status == 403   ? "Refused"
                      : status == 404 ? "Not found"
                      : status == 405 ? "Method not allowed"
                                      : "Error";
  Html(res, status,
       Page(title, "<p class=\"error\">" + Escape(what) + "</p>",
            s ? Signed(*s) : "", s ? s->csrf : ""));
}

DeadLetters* Console::DeadLettersOrError(httplib::Response& res, const Session& s) {
  if (!broker_) {
    BrokerOptions options;
    options.create_if_missing = false;  // a console must not create queues by looking at them
    auto b = OpenBroker(settings_.broker_url, options, env_);
    if (!b.ok()) {
      Fail(res, 503, "Cannot open the broker " + connect::RedactedUrl(settings_.broker_url) + ": " + b.status().ToString(),
           &s);
      return nullptr;
    }
    broker_ = std::move(*b);
  }
  DeadLetters* dead = broker_->dead_letters();
  if (!dead) Fail(res, 501, "This broker keeps no dead-letter queue idem can list (see docs/brokers.md).", &s);
  return dead;
}

void Console::LoginForm(const httplib::Request&, httplib::Response& res) { Html(res, 200, LoginPage("")); }

void Console::Login(const httplib::Request& req, httplib::Response& res) {
  if (!SameOrigin(req)) {
    Html(res, 403, LoginPage("Refused: the login form must be sent from this console's own page."));
    return;
  }
  const httplib::Params form = FormFields(req);
  const OperatorConfig* op = settings_.config.Find(Field(form, "name"));
  // A typed name that is no operator is not logged: it may be a secret typed in the wrong field.
  const std::string who = op ? op->name : "(not an operator)";
  // Refused before the secret is hashed: a throttled guess costs no CPU.
  if (const int64_t wait_ms = throttle_.Admit(op ? op->name : "", req.remote_addr); wait_ms > 0) {
    const int64_t seconds = (wait_ms + 999) / 1000;
    Log("console_login", {{"operator", who}, {"ok", false}, {"throttled", true}, {"retry_after_s", seconds}});
    res.set_header("Retry-After", std::to_string(seconds));
    Html(res, 429, LoginPage("Too many failed logins for this name or from this address: try again in " +
                             std::to_string(seconds) + " s."));
    return;
  }
  // An unknown name costs the same hash as a known one, so timing does not tell names apart.
  static const std::string kDecoy = HashSecret(RandomHex(16), kDefaultHashIterations).value();
  const bool good = VerifySecret(Field(form, "secret"), op ? op->secret_hash : kDecoy) && op;
  Log("console_login", {{"operator", who}, {"ok", good}});
  if (!good) {
    throttle_.Failed(op ? op->name : "", req.remote_addr);
    Html(res, 401, LoginPage("Wrong name or secret."));
    return;
  }
  throttle_.Succeeded(op->name, req.remote_addr);
  const Session s = sessions_.Create({op->name, op->role, "console login"});
  res.set_header("Set-Cookie", std::string(kCookie) + "=" + s.id + "; Path=/console; HttpOnly; SameSite=Strict; Max-Age=" +
                                   std::to_string(sessions_.ttl_ms() / 1000));
  res.set_redirect("/console/", 303);
}

void Console::Logout(const httplib::Request& req, httplib::Response& res) {
  const httplib::Params form = FormFields(req);
  auto s = Require(req, res, false, &form);
  if (!s) return;
  sessions_.End(s->id);
  Log("console_logout", {{"operator", s->who.name}});
  res.set_header("Set-Cookie", std::string(kCookie) + "=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0");
  res.set_redirect("/console/login", 303);
}

void Console::List(const httplib::Request& req, httplib::Response& res) {
  auto s = Require(req, res, true, nullptr);
  if (!s) return;
  const int64_t after = IdParam(req.get_param_value("after")).value_or(0);
  std::lock_guard<std::mutex> lock(mu_);
  DeadLetters* dead = DeadLettersOrError(res, *s);
  if (!dead) return;
  auto list = dead->List(kPageSize + 1, after);
  if (!list.ok()) {
    broker_.reset();
    return Fail(res, 503, "Cannot list the dead letters: " + list.status().ToString(), &*s);
  }
  const bool more = list->size() > kPageSize;
  if (more) list->resize(kPageSize);
  Html(res, 200, ListPage(*list, more, env_->NowMs(), *s, after));
}

std::optional<DeadLetter> Console::OneDeadLetter(const httplib::Request& req, httplib::Response& res,
                                                const Session& s) {
  const auto id = IdParam(req.matches[1]);
  if (!id) return Fail(res, 404, "No such dead letter.", &s), std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  DeadLetters* dead = DeadLettersOrError(res, s);
  if (!dead) return std::nullopt;
  auto d = dead->Get(*id);
  if (!d.ok()) {
    broker_.reset();
    return Fail(res, 503, "Cannot read the dead letter: " + d.status().ToString(), &s), std::nullopt;
  }
  if (!d->has_value())
    Fail(res, 404, "No dead letter with id " + std::to_string(*id) + " (replayed or purged meanwhile?).", &s);
  return std::move(*d);
}

void Console::Detail(const httplib::Request& req, httplib::Response& res) {
  auto s = Require(req, res, true, nullptr);
  if (!s) return;
  if (auto d = OneDeadLetter(req, res, *s)) Html(res, 200, DetailPage(*d, env_->NowMs(), *s));
}

void Console::Body(const httplib::Request& req, httplib::Response& res) {
  auto s = Require(req, res, false, nullptr);
  if (!s) return;
  auto d = OneDeadLetter(req, res, *s);
  if (!d) return;
  res.set_header("Content-Disposition", "attachment; filename=\"dead-letter-" + std::to_string(d->id) + ".bin\"");
  res.set_content(d->message.payload, "application/octet-stream");
}

void Console::Change(const httplib::Request& req, httplib::Response& res, bool purge) {
  const httplib::Params form = FormFields(req);
  auto s = Require(req, res, false, &form);
  if (!s) return;
  const char* verb = purge ? "purge" : "replay";
  if (s->who.role != Role::kOperator) {
    Log("console_refused", {{"operator", s->who.name}, {"path", req.path}, {"why", "read-only role"}});
    return Fail(res, 403, s->who.name + " has the read-only role: only an operator may " + verb +
                              " dead letters. Nothing was changed.", &*s);
  }
  const bool all = Field(form, "all") == "1";
  std::set<int64_t> unique;
  for (auto [it, end] = form.equal_range("id"); it != end; ++it) {
    auto id = IdParam(it->second);
    if (!id) return Fail(res, 400, "Not a dead-letter id: \"" + it->second + "\".", &*s);
    unique.insert(*id);
  }
  if (all == !unique.empty())
    return Fail(res, 400, std::string("Choose dead letters to ") + verb + ", or all of them (not both).", &*s);
  const std::vector<int64_t> ids(unique.begin(), unique.end());
  if (purge && Field(form, "confirm") != "yes") return Html(res, 200, ConfirmPurgePage(ids, *s));
  std::lock_guard<std::mutex> lock(mu_);
  DeadLetters* dead = DeadLettersOrError(res, *s);
  if (!dead) return;
  const ChangeRequest change{purge ? DeadLetterAction::kPurge : DeadLetterAction::kReplay, ids,
                             connect::RedactedUrl(settings_.broker_url)};
  auto n = ApplyAudited(*dead, audit_, s->who, change, env_);
  Log("console_" + std::string(verb), {{"operator", s->who.name},
                                       {"dead_letter_ids", IdList(ids)},
                                       {"changed", n.ok() ? *n : -1},
                                       {"outcome", n.ok() ? "ok"
                                                   : n.status().IsNotFound() ? kOutcomeNotFound
                                                                             : n.status().ToString()}});
  if (!n.ok() && n.status().IsNotFound()) return Fail(res, 404, "Refused: " + n.status().message() + ".", &*s);
  if (!n.ok()) {
    broker_.reset();
    return Fail(res, 503, std::string("The ") + verb + " failed: " + n.status().ToString(), &*s);
  }
  Html(res, 200, ChangeDonePage(purge, *n, ids, *s));
}

void Console::Audit(const httplib::Request& req, httplib::Response& res) {
  auto s = Require(req, res, true, nullptr);
  if (!s) return;
  const int64_t before = IdParam(req.get_param_value("before")).value_or(0);
  std::lock_guard<std::mutex> lock(mu_);
  auto rows = audit_.List(kPageSize, before);
  if (!rows.ok()) return Fail(res, 503, "Cannot read the audit: " + rows.status().ToString(), &*s);
  Html(res, 200, AuditPage(*rows, rows->size() == kPageSize, *s));
}

}  // namespace idem::console
