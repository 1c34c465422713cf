#include "harness/plot_gnuplot.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace idem::bench {
namespace {

std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// One colour per store, so a store's idem, ceiling and naive lines belong together.
const char* ColourOf(size_t store_index) {
  static const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
  return kColours[store_index % 4];
}

// The script, or "" when no line has a point (every sweep run failed or was left out).
std::string Script(const BenchOutcome& b, const std::string& png_path) {
  std::ostringstream gp;
  gp << "set terminal pngcairo size 960,600 font 'sans,11' noenhanced\n"
     << "set output " << Quoted(png_path) << "\n"
     << "set title " << Quoted("idem bench: throughput against batch size (pay.success, " +
                               std::to_string(static_cast<int>(b.options.duplicate_ratio * 100 + 0.5)) +
                               " % duplicates, " + (b.options.quick ? "quick" : "full") + " run)")
     << "\n"
     << "set logscale xy\nset xrange [0.8:1300]\nset grid xtics ytics mytics\nset key top left box opaque\n"
     << "set xlabel 'batch size (messages per transaction)'\nset ylabel 'messages / s (log scale)'\n"
     << "set xtics (";
  for (size_t i = 0; i < b.options.sweep.size(); ++i) gp << (i ? ", " : "") << b.options.sweep[i];
  gp << ")\n";
  std::vector<std::string> plots;
  for (size_t si = 0; si < b.summaries.size(); ++si) {
    const StoreSummary& s = b.summaries[si];
    const std::string store = s.target.label;
    for (Variant v : {Variant::kIdem, Variant::kCeiling}) {
      const std::string block = "$" + std::string(VariantName(v)) + "_" + std::to_string(si);
      std::ostringstream points;
      for (size_t batch : b.options.sweep)
        if (double y = SweepPoint(b, s.target.label, v, batch); y > 0) points << batch << " " << y << "\n";
      if (points.str().empty()) continue;  // every run of this line failed or was left out (--only)
      gp << block << " << EOD\n" << points.str() << "EOD\n";
      const bool idem = v == Variant::kIdem;
      const std::string title = idem ? "idem, " + store : "ceiling (no guard), " + s.target.label;
      plots.push_back(block + " with linespoints lw 2 pt " + (idem ? "7" : "6") + " dt " + (idem ? "1" : "2") +
                      " lc rgb '" + ColourOf(si) + "' title " + Quoted(title));
    }
    if (s.naive_per_s > 0)
      plots.push_back(std::to_string(s.naive_per_s) + " with lines lw 1.5 dt 3 lc rgb '" + ColourOf(si) +
                      "' title " + Quoted("naive (one message per transaction), " + store));
  }
  if (plots.empty()) return "";
  gp << "plot ";
  for (size_t i = 0; i < plots.size(); ++i) gp << (i ? ", \\\n     " : "") << plots[i];
  gp << "\n";
  return gp.str();
}

}  // namespace

Status PlotThroughputVsBatch(const BenchOutcome& b, const std::string& png_path) {
  const std::string script_path = png_path.substr(0, png_path.rfind('.')) + ".gp";
  const std::string script = Script(b, png_path);
  if (script.empty()) return Status::NotFound("no plot: this run has no batch-size figures (all left out or failed)");
  {
    std::ofstream out(script_path);
    out << script;
    if (!out) return Status::IOError("cannot write " + script_path);
  }
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return Status::IOError("fork for gnuplot failed");
  if (pid == 0) {
    execlp("gnuplot", "gnuplot", script_path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    return Status::NotFound("gnuplot is not installed, so there is no plot: apt-get install gnuplot-nox "
                            "(scripts/install-deps.sh does it) and run the bench again");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Status::IOError("gnuplot failed on " + script_path + " (run it by hand to see why)");
  return Status::OK();
}

}  // namespace idem::bench
