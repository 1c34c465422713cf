#include "cli_util.h"

#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "connect/known_schemes.h"
#include "connect/scheme_table.h"

namespace idem::cli {
namespace {

// Thrown rather than returned: CLI11 names a hidden option "" in its own
// message, and the error must name the flag the user typed, old name or new.
CLI::Validator UrlCheck(Status (*check)(const std::string&), const std::string& what, const std::string& flag) {
  return CLI::Validator(
      [check, what, flag](std::string& url) -> std::string {
        if (url.empty()) throw CliError(flag + ": needs " + what + ", found an empty value", 2);
        if (Status s = check(url); !s.ok()) throw CliError(flag + ": " + s.message(), 2);
        return {};
      },
      "");
}

// The alias is added first, hidden (group ""), and hands each value it gets
// to the canonical option: CLI11 runs option callbacks in the order options
// were added, so the canonical option holds the value before its own callback
// and before ->required() is checked. Both bind the same variable.
template <class T>
CLI::Option* AddUrlOption(CLI::App* cmd, const std::string& name, const std::string& alias, T* target,
                          const std::string& help, Status (*check)(const std::string&), const std::string& what) {
  CLI::Option* old = cmd->add_option(alias, *target, "Former name of " + name)->group("");
  CLI::Option* canonical = cmd->add_option(name, *target, help)->check(UrlCheck(check, what, name));
  // Parsing is over when callbacks run: the canonical option's own values are in already.
  auto handed = std::make_shared<size_t>(0);
  old->check(UrlCheck(check, what, alias))->each([canonical, name, alias, handed](const std::string& value) {
    if (canonical->count() > *handed)
      throw CliError(alias + " is the former name of " + name + ": give one of them", 2);
    canonical->add_result(value);
    ++*handed;
  });
  return canonical;
}

// "a store URL (sqlite:PATH, postgresql://…)": the forms come from the wiring
// table, the one place that knows the schemes.
template <class Opener>
std::string Wanted(const connect::SchemeTable<Opener>& table) {
  std::string forms;
  for (const auto& s : table.schemes) forms += (forms.empty() ? "" : ", ") + s.info.form;
  return "a " + table.kind + " URL (" + forms + ")";
}

}  // namespace

CLI::Option* AddStoreOption(CLI::App* cmd, std::string* url, const std::string& help) {
  return AddUrlOption(cmd, "--store", "--store-url", url, help, &connect::CheckStoreUrl,
                      Wanted(connect::StoreSchemes()));
}

CLI::Option* AddStoreOption(CLI::App* cmd, std::vector<std::string>* urls, const std::string& help) {
  return AddUrlOption(cmd, "--store", "--store-url", urls, help, &connect::CheckStoreUrl,
                      Wanted(connect::StoreSchemes()));
}

CLI::Option* AddBrokerOption(CLI::App* cmd, std::string* url, const std::string& help) {
  return AddUrlOption(cmd, "--broker", "--queue", url, help, &connect::CheckBrokerUrl,
                      Wanted(connect::BrokerSchemes()));
}

CLI::Validator FastFilterUrl() {
  return UrlCheck(&connect::CheckFastFilterUrl, Wanted(connect::FastFilterSchemes()), "--redis-url");
}

CLI::Validator NotBlank() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        return value.find_first_not_of(" \t") == std::string::npos ? "must not be empty" : std::string();
      },
      "");
}

std::unique_ptr<Broker> OpenQueueOrDie(const std::string& url, QueueAccess access) {
  if (url.empty()) throw CliError("no broker given: pass --broker FILE (the embedded queue's file) or a broker URL", 2);
  BrokerOptions options;
  options.create_if_missing = access == QueueAccess::kCreate;
  auto q = OpenBroker(url, options, Env::Default());
  if (!q.ok() && q.status().IsNotFound())
    throw CliError("no queue at '" + RedactUrl(url) + "': check --broker; `idem publish` creates it (" +
                   q.status().message() + ")");
  if (!q.ok()) throw CliError("cannot open queue '" + RedactUrl(url) + "': " + q.status().ToString());
  return std::move(*q);
}

// The same redaction as the wiring table's errors, so a password never shows
// in one place and not in another.
std::string RedactUrl(const std::string& url) { return connect::RedactedUrl(url); }

std::string FormatTimeMs(int64_t ms) {
  if (ms == 0) return "-";
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms % 1000));
  return out;
}

}  // namespace idem::cli
