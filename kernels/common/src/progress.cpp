#include "spidal/progress.hpp"

#include <cmath>
#include <cstdio>

namespace spidal {

std::string json_quote(const std::string& text) {
  std::string quoted = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': quoted += "\\\""; break;
      case '\\': quoted += "\\\\"; break;
      case '\n': quoted += "\\n"; break;
      case '\r': quoted += "\\r"; break;
      case '\t': quoted += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          quoted += escaped;
        } else {
          quoted += c;
        }
    }
  }
  return quoted + "\"";
}

JsonFields& JsonFields::add_raw(const std::string& key, const std::string& json) {
  if (!members_.empty()) members_ += ',';
  members_ += json_quote(key) + ':' + json;
  return *this;
}

namespace {

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

template <class T, class ToJson>
std::string json_array(const std::vector<T>& items, ToJson to_json) {
  std::string json = "[";
  for (const T& item : items) {
    if (json.size() > 1) json += ',';
    json += to_json(item);
  }
  return json + ']';
}

}  // namespace

JsonFields& JsonFields::add(const std::string& key, double value) { return add_raw(key, json_number(value)); }

JsonFields& JsonFields::add(const std::string& key, std::int64_t value) { return add_raw(key, std::to_string(value)); }

JsonFields& JsonFields::add(const std::string& key, const std::string& value) { return add_raw(key, json_quote(value)); }

JsonFields& JsonFields::add(const std::string& key, bool value) { return add_raw(key, value ? "true" : "false"); }

JsonFields& JsonFields::add(const std::string& key, const JsonFields& object) { return add_raw(key, object.object()); }

JsonFields& JsonFields::add(const std::string& key, const std::vector<std::string>& strings) {
  return add_raw(key, json_array(strings, json_quote));
}

JsonFields& JsonFields::add(const std::string& key, const std::vector<double>& numbers) {
  return add_raw(key, json_array(numbers, json_number));
}

JsonFields& JsonFields::append(const JsonFields& other) {
  if (other.members_.empty()) return *this;
  if (!members_.empty()) members_ += ',';
  members_ += other.members_;
  return *this;
}

std::string JsonFields::object() const { return '{' + members_ + '}'; }

ProgressReporter::ProgressReporter(std::string program, bool enabled)
    : program_(std::move(program)), enabled_(enabled), start_(std::chrono::steady_clock::now()) {}

double ProgressReporter::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressReporter::report(const std::string& phase, const JsonFields& fields) {
  if (!enabled_) return;
  JsonFields line;
  line.add("program", program_).add("phase", phase).append(fields).add("elapsed", elapsed());
  const std::string text = line.object() + '\n';
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

void ProgressReporter::done(const JsonFields& results, const JsonFields& timings) {
  JsonFields fields = results;
  fields.add("timings", timings);
  report("done", fields);
}

}  // namespace spidal
