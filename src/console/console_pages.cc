#include "console/console_pages.h"

#include "console/audited_change.h"
#include "console/html.h"

namespace idem::console {
namespace {

std::string Signed(const Session& s) { return s.who.name + " (" + RoleName(s.who.role) + ")"; }

std::string CsrfField(const Session& s) {
  return "<input type=\"hidden\" name=\"csrf\" value=\"" + Escape(s.csrf) + "\">";
}

std::string Cell(const std::string& escaped, const char* cls = nullptr) {
  return std::string("<td") + (cls ? std::string(" class=\"") + cls + "\"" : "") + ">" + escaped + "</td>";
}

// At most `limit` bytes of `bytes`, shown; a cut one says how long it is.
std::string Shown(const std::string& bytes, size_t limit) {
  return ShowPrefix(bytes, limit) + (bytes.size() > limit ? " … (" + std::to_string(bytes.size()) + " bytes)" : "");
}

}  // namespace

std::string LoginPage(const std::string& message) {
  return Page("Dead-letter console",
              (message.empty() ? "" : "<p class=\"error\">" + Escape(message) + "</p>") +
                  "<form method=\"post\" action=\"/console/login\"><p><label>Name <input name=\"name\" "
                  "autocomplete=\"username\" required></label></p><p><label>Secret <input name=\"secret\" "
                  "type=\"password\" autocomplete=\"current-password\" required></label></p>"
                  "<button type=\"submit\">Log in</button></form>");
}

std::string ListPage(const std::vector<DeadLetter>& dead, bool more, int64_t now_ms, const Session& s, int64_t after) {
  const bool can_change = s.who.role == Role::kOperator;
  std::string body;
  if (dead.empty()) {
    body = "<p>The dead-letter queue is empty" + std::string(after > 0 ? " after this point" : "") + ".</p>";
    return Page("Dead letters", body, Signed(s), s.csrf);
  }
  body = "<form method=\"post\" action=\"/console/replay\">" + CsrfField(s) +
         "<table><thead><tr>" + std::string(can_change ? "<th></th>" : "") +
         "<th>ID</th><th>Business key</th><th>Topic</th><th>Reason</th><th>Attempts</th><th>First failure</th>"
         "<th>Last failure</th><th>Age</th></tr></thead><tbody>";
  for (const DeadLetter& d : dead) {
    const std::string id = std::to_string(d.id);
    body += "<tr>";
    if (can_change) body += "<td><input type=\"checkbox\" name=\"id\" value=\"" + id + "\" aria-label=\"select " + id + "\"></td>";
    body += Cell("<a href=\"/console/dead/" + id + "\">" + id + "</a>") + Cell(ShowBytes(d.message.key)) +
            Cell(ShowBytes(d.message.topic)) + Cell(ShowBytes(d.reason), "reason") + Cell(std::to_string(d.attempts)) +
            Cell(Escape(FormatTime(d.first_failed_ms))) + Cell(Escape(FormatTime(d.last_failed_ms))) +
            Cell(Escape(FormatAge(now_ms - (d.first_failed_ms ? d.first_failed_ms : d.last_failed_ms)))) + "</tr>";
  }
  body += "</tbody></table>";
  if (can_change)
    body += "<p><button type=\"submit\" id=\"replay-selected\">Replay selected</button>"
            "<button type=\"submit\" name=\"all\" value=\"1\" id=\"replay-all\">Replay all</button>"
            "<button type=\"submit\" formaction=\"/console/purge\" id=\"purge-selected\">Purge selected…</button>"
            "<button type=\"submit\" formaction=\"/console/purge\" name=\"all\" value=\"1\" id=\"purge-all\">Purge all…"
            "</button></p><p>Replay sends messages back through the main queue: every guard applies again.</p>";
  body += "</form>";
  if (more) body += "<p><a href=\"/console/?after=" + std::to_string(dead.back().id) + "\">Next page</a></p>";
  return Page("Dead letters", body, Signed(s), s.csrf);
}

std::string DetailPage(const DeadLetter& d, int64_t now_ms, const Session& s) {
  const std::string id = std::to_string(d.id);
  std::string body = "<table><tbody>";
  auto row = [&](const char* name, const std::string& escaped) {
    body += "<tr><th>" + std::string(name) + "</th><td>" + escaped + "</td></tr>";
  };
  row("Business key", ShowBytes(d.message.key));
  row("Topic", ShowBytes(d.message.topic));
  row("Message id", ShowBytes(d.message.id));
  row("Reason", ShowBytes(d.reason));
  row("Attempts", std::to_string(d.attempts));
  row("Deliveries", std::to_string(d.message.delivery_count));
  row("First failure", Escape(FormatTime(d.first_failed_ms)));
  row("Last failure", Escape(FormatTime(d.last_failed_ms)));
  row("Age", Escape(FormatAge(now_ms - (d.first_failed_ms ? d.first_failed_ms : d.last_failed_ms))));
  body += "</tbody></table><h2>Headers</h2>";
  if (d.message.headers.empty()) body += "<p>None.</p>";
  else {
    body += "<table><tbody>";
    for (const auto& [name, value] : d.message.headers)
      body += "<tr><th>" + Shown(name, kShownHeaderBytes) + "</th><td>" + Shown(value, kShownHeaderBytes) + "</td></tr>";
    body += "</tbody></table>";
  }
  const size_t size = d.message.payload.size();
  const bool cut = size > kShownBodyBytes;
  body += "<h2>Body (" + std::to_string(size) + " bytes" +
          (cut ? ", the first " + std::to_string(kShownBodyBytes) + " shown" : "") +
          ")</h2><p><a id=\"download\" href=\"/console/dead/" + id + "/body\" download>Download the " +
          (cut ? "whole " : "") + "body byte-exact</a>. Bytes that are not UTF-8 are shown as \\xNN.</p>" +
          "<pre id=\"body\">" + ShowPrefix(d.message.payload, kShownBodyBytes) + (cut ? "\n…" : "") + "</pre>";
  if (s.who.role == Role::kOperator)
    body += "<form method=\"post\" action=\"/console/replay\">" + CsrfField(s) + "<input type=\"hidden\" name=\"id\" value=\"" +
            id + "\"><button type=\"submit\">Replay</button><button type=\"submit\" formaction=\"/console/purge\">"
            "Purge…</button></form>";
  return Page("Dead letter " + id, body, Signed(s), s.csrf);
}

std::string ConfirmPurgePage(const std::vector<int64_t>& ids, const Session& s) {
  std::string fields = CsrfField(s) + "<input type=\"hidden\" name=\"confirm\" value=\"yes\">";
  if (ids.empty()) fields += "<input type=\"hidden\" name=\"all\" value=\"1\">";
  for (int64_t id : ids) fields += "<input type=\"hidden\" name=\"id\" value=\"" + std::to_string(id) + "\">";
  const std::string what = ids.empty() ? "every dead letter" : "dead letter(s) " + IdList(ids);
  return Page("Confirm purge",
              "<p>Purging deletes " + Escape(what) + " for good. This is audited under your name.</p>"
              "<form method=\"post\" action=\"/console/purge\">" + fields +
                  "<button type=\"submit\" id=\"confirm-purge\">Delete for good</button></form>"
                  "<p><a href=\"/console/\">Cancel</a></p>",
              Signed(s), s.csrf);
}

std::string ChangeDonePage(bool purge, int64_t changed, const std::vector<int64_t>& ids, const Session& s) {
  std::string text = purge ? "Purged " + std::to_string(changed) + " dead letter(s)."
                           : "Replayed " + std::to_string(changed) +
                                 " message(s) into the main queue; every guard applies again.";
  if (!ids.empty() && changed < static_cast<int64_t>(ids.size()))
    text += " The others had left the dead-letter queue meanwhile.";
  return Page(purge ? "Purged" : "Replayed",
              "<p class=\"notice\" id=\"result\">" + Escape(text) +
                  "</p><p><a href=\"/console/\">Back to the list</a> · <a href=\"/console/audit\">Audit</a></p>",
              Signed(s), s.csrf);
}

std::string AuditPage(const std::vector<AuditEntry>& rows, bool more, const Session& s) {
  std::string body;
  if (rows.empty()) return Page("Audit", "<p>No replay or purge has been audited yet.</p>", Signed(s), s.csrf);
  body = "<table><thead><tr><th>ID</th><th>When</th><th>Operator</th><th>Authenticated by</th><th>Action</th>"
         "<th>Dead letters</th><th>Changed</th><th>Outcome</th><th>Broker</th></tr></thead><tbody>";
  for (const AuditEntry& e : rows)
    body += "<tr>" + Cell(std::to_string(e.id)) + Cell(Escape(FormatTime(e.at_ms))) + Cell(ShowBytes(e.operator_name)) +
            Cell(ShowBytes(e.authenticated_by)) + Cell(Escape(e.action)) + Cell(Escape(e.dead_letter_ids)) +
            Cell(e.changed < 0 ? "-" : std::to_string(e.changed)) + Cell(ShowBytes(e.outcome)) +
            Cell(ShowBytes(e.broker)) + "</tr>";
  body += "</tbody></table>";
  if (more) body += "<p><a href=\"/console/audit?before=" + std::to_string(rows.back().id) + "\">Older</a></p>";
  return Page("Audit", body, Signed(s), s.csrf);
}

}  // namespace idem::console
