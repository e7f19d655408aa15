// Chrome's trace event format (the JSON object form): complete events ("X") for spans, instants ("i") for
// submissions, flows ("s"/"f") for the messages of a broadcast, and names for processes and threads. Times
// are microseconds from the run's first event, on the reference clock. docs/tracing.md lists the fields.
#include <herald/error.hpp>
#include <herald/trace.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>
#include <limits>
#include <map>
#include <tuple>

namespace herald::trace {
namespace {

std::string json_text(std::string_view text) { return nlohmann::json(std::string(text)).dump(); }

// Splits a field packed as (high << shift | low).
std::int64_t high(std::int64_t v, int shift) { return v >> shift; }
std::int64_t low(std::int64_t v, int shift) { return v & ((std::int64_t{1} << shift) - 1); }

class Writer {
 public:
  Writer(const Recording& run, std::ostream& out) : run_(run), out_(out) { index(); }

  void write() {
    out_ << "{\"traceEvents\":[\n";
    for (const Log& log : run_.logs) {
      item() << R"({"ph":"M","name":"process_name","pid":)" << log.rank << R"(,"tid":0,"args":{"name":"rank )"
             << log.rank << "\"}}";
      for (std::size_t t = 0; t < log.threads.size(); ++t)
        item() << R"({"ph":"M","name":"thread_name","pid":)" << log.rank << ",\"tid\":" << t
               << R"(,"args":{"name":)" << json_text(log.threads[t]) << "}}";
      for (const Event& e : log.events) event(log, e);
    }
    out_ << "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"format\":\"herald-trace\",\"version\":1,\"ranks\":"
         << run_.logs.size() << ",\"clock\":" << (run_.simulated ? "\"simulated\"" : "\"MPI_Wtime\"")
         << ",\"offsets_us\":[";
    for (std::size_t r = 0; r < run_.clocks.size(); ++r)
      out_ << (r ? "," : "") << number(run_.clocks[r].offset_start * 1e6);
    out_ << "],\"offset_errors_us\":[";
    for (std::size_t r = 0; r < run_.clocks.size(); ++r)
      out_ << (r ? "," : "") << number(run_.clocks[r].error * 1e6);
    out_ << "]}}\n";
  }

 private:
  using MessageKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;

  double ref(const Log& log, double local) const { return run_.clocks[static_cast<std::size_t>(log.rank)].to_reference(local); }
  std::string us(double reference) const { return number((reference - origin_) * 1e6); }
  static std::string number(double v) {
    char text[64];
    std::snprintf(text, sizeof text, "%.3f", v);
    return text;
  }
  std::ostream& item() {
    if (!first_) out_ << ",\n";
    first_ = false;
    return out_;
  }
  static const std::string& text(const Log& log, std::uint32_t i) {
    static const std::string none;
    return i < log.strings.size() ? log.strings[i] : none;
  }

  // The joins a record needs from other processes' records, and the run's first instant.
  void index() {
    origin_ = std::numeric_limits<double>::infinity();
    for (const Log& log : run_.logs)
      for (const Event& e : log.events) {
        origin_ = std::min(origin_, ref(log, e.begin));
        switch (e.kind) {
          case Kind::submit: submitted_[e.a] = ref(log, e.begin); break;
          case Kind::producer: producers_[e.a].push_back(e.b); break;
          case Kind::version: writers_[e.e] = e.a; break;
          case Kind::data_name: data_names_[e.a] = text(log, e.name); break;
          case Kind::recipient: recipients_[e.a].push_back(e.b); break;
          case Kind::recv:  // a message's receiver: (comm, id, from, to, offset, bytes)
            receivers_[{e.b, e.a, e.c, log.rank, low(e.e, 40), e.d}].push_back(&e);
            break;
          case Kind::dyn_land:  // a piece's receiver: (-1, piece, from, to, offset, bytes)
            receivers_[{-1, e.a, e.b, log.rank, e.d, e.c}].push_back(&e);
            break;
          default: break;
        }
      }
    if (!std::isfinite(origin_)) origin_ = 0;
  }

  void span(const Log& log, const Event& e, std::string_view cat, std::string_view name, const std::string& args) {
    item() << R"({"ph":"X","cat":")" << cat << "\",\"name\":" << json_text(name) << ",\"pid\":" << log.rank
           << ",\"tid\":" << e.thread << ",\"ts\":" << us(ref(log, e.begin)) << ",\"dur\":"
           << number(std::max(0.0, e.end - e.begin) * 1e6) << ",\"args\":{" << args << "}}";
  }

  template <class T>
  static std::string list(const std::vector<T>& values) {
    std::string s = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i) s += ',';
      s += std::to_string(values[i]);
    }
    s += ']';
    return s;
  }
  // The name the program gave a datum ("" in a trace that never recorded it).
  const std::string& data_name(std::int64_t handle) const {
    static const std::string none;
    const auto at = data_names_.find(handle);
    return at == data_names_.end() ? none : at->second;
  }
  std::int64_t writer(std::int64_t version) const {
    const auto at = writers_.find(version);
    return at == writers_.end() ? -1 : at->second;
  }
  std::string optional_time(const std::map<std::int64_t, double>& times, std::int64_t key) const {
    const auto at = times.find(key);
    return at == times.end() ? "null" : us(at->second);
  }

  void event(const Log& log, const Event& e) {
    using std::to_string;
    switch (e.kind) {
      case Kind::task: {
        const auto p = producers_.find(e.a);
        span(log, e, "task", text(log, e.name),
             "\"task\":" + to_string(e.a) + ",\"priority\":" + to_string(e.b) + ",\"ready\":" +
                 (e.mark > 0 ? us(ref(log, e.mark)) : "null") + ",\"submit\":" + optional_time(submitted_, e.a) +
                 ",\"producers\":" + (p == producers_.end() ? "[]" : list(p->second)));
        break;
      }
      case Kind::submit:
        item() << R"({"ph":"i","s":"t","cat":"submit","name":)" << json_text(text(log, e.name)) << ",\"pid\":" << log.rank
               << ",\"tid\":" << e.thread << ",\"ts\":" << us(ref(log, e.begin)) << ",\"args\":{\"task\":" << e.a
               << "}}";
        break;
      case Kind::transfer:
        span(log, e, "transfer", "fetch",
             "\"from\":" + to_string(e.a) + ",\"to\":" + to_string(e.b) + ",\"bytes\":" + to_string(e.c) +
                 ",\"task\":" + to_string(e.d) + ",\"data\":" + to_string(high(e.e, 32)) + ",\"version\":" +
                 to_string(low(e.e, 32)) + ",\"name\":" + json_text(data_name(high(e.e, 32))) +
                 ",\"producer\":" + to_string(writer(e.e)));
        break;
      case Kind::broadcast: {
        const auto r = recipients_.find(e.a);
        span(log, e, "broadcast", text(log, e.name),
             "\"id\":" + to_string(e.a) + ",\"root\":" + to_string(e.b) + ",\"bytes\":" + to_string(e.c) +
                 ",\"role\":" + (e.d ? "\"root\"" : "\"recipient\"") + ",\"data\":" + to_string(high(e.e, 32)) +
                 ",\"version\":" + to_string(low(e.e, 32)) + ",\"name\":" + json_text(data_name(high(e.e, 32))) +
                 ",\"recipients\":" + (r == recipients_.end() ? "[]" : list(r->second)));
        break;
      }
      case Kind::schedule:
        span(log, e, "schedule", "schedule", "\"tasks\":" + to_string(e.a));
        break;
      case Kind::bcast:
        span(log, e, "bcast", text(log, e.name),
             "\"id\":" + to_string(e.a) + ",\"comm\":" + to_string(e.b) + ",\"root\":" + to_string(e.c) +
                 ",\"bytes\":" + to_string(e.d) + ",\"why\":" + json_text(text(log, e.detail)));
        break;
      case Kind::send:
      case Kind::recv: {
        const bool send = e.kind == Kind::send;
        span(log, e, send ? "send" : "recv", send ? "send" : "recv",
             "\"bcast\":" + to_string(e.a) + ",\"comm\":" + to_string(e.b) + (send ? ",\"to\":" : ",\"from\":") +
                 to_string(e.c) + ",\"bytes\":" + to_string(e.d) + ",\"offset\":" + to_string(low(e.e, 40)) +
                 ",\"step\":" + to_string(high(e.e, 40)));
        if (send) flow(log, e, {e.b, e.a, log.rank, e.c, low(e.e, 40), e.d}, e.c);
        break;
      }
      case Kind::dyn_send:
      case Kind::dyn_land:
        span(log, e, "dyn", text(log, e.name),
             "\"id\":" + to_string(e.a) + ",\"origin\":" + to_string(high(e.a, 40)) + ",\"peer\":" +
                 to_string(e.b) + ",\"bytes\":" + to_string(e.c) + ",\"offset\":" + to_string(e.d) +
                 ",\"priority\":" + to_string(e.e));
        if (e.kind == Kind::dyn_send) flow(log, e, {-1, e.a, log.rank, e.b, e.d, e.c}, e.b);
        break;
      case Kind::producer:
      case Kind::version:
      case Kind::recipient:
      case Kind::data_name:
        break;  // joined into the task, transfer and broadcast records
    }
  }

  // An arrow from a send to the receive that took it (the first not yet taken with the same key), on rank
  // `to`.
  void flow(const Log& log, const Event& send, const MessageKey& key, std::int64_t to_rank) {
    auto at = receivers_.find(key);
    if (at == receivers_.end() || at->second.empty()) return;
    if (to_rank < 0 || static_cast<std::size_t>(to_rank) >= run_.logs.size()) return;
    const Event& recv = *at->second.front();
    at->second.pop_front();
    const std::size_t id = ++flows_;
    item() << R"({"ph":"s","cat":"message","name":"message","id":)" << id << ",\"pid\":" << log.rank
           << ",\"tid\":" << send.thread << ",\"ts\":" << us(ref(log, send.begin)) << "}";
    const Log& to = run_.logs[static_cast<std::size_t>(to_rank)];
    item() << R"({"ph":"f","bp":"e","cat":"message","name":"message","id":)" << id << ",\"pid\":" << to.rank
           << ",\"tid\":" << recv.thread << ",\"ts\":" << us(ref(to, recv.end)) << "}";
  }

  const Recording& run_;
  std::ostream& out_;
  bool first_ = true;
  double origin_ = 0;
  std::map<std::int64_t, double> submitted_;
  std::map<std::int64_t, std::vector<std::int64_t>> producers_, recipients_;
  std::map<std::int64_t, std::int64_t> writers_;  // version (data << 32 | version) -> its task
  std::map<std::int64_t, std::string> data_names_;  // data handle -> the name it was registered under
  std::map<MessageKey, std::deque<const Event*>> receivers_;
  std::size_t flows_ = 0;
};

}  // namespace

void write_chrome_json(const Recording& run, const std::filesystem::path& file) {
  std::ofstream out(file);
  if (!out) throw Error(Errc::invalid_argument, "cannot write the trace file " + file.string());
  Writer(run, out).write();
  if (!out) throw Error(Errc::invalid_argument, "writing the trace file " + file.string() + " failed");
}

}  // namespace herald::trace
