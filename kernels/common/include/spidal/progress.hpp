// Progress lines for the job gateway: one JSON object per line on stdout (rank 0
// only), flushed immediately. Every line has "program", "phase" and "elapsed"
// (seconds since the reporter started); the last one has "phase":"done".
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace spidal {

// Builds the members of one JSON object in insertion order.
class JsonFields {
 public:
  JsonFields& add(const std::string& key, double value);  // non-finite -> null
  JsonFields& add(const std::string& key, std::int64_t value);
  JsonFields& add(const std::string& key, int value) { return add(key, static_cast<std::int64_t>(value)); }
  JsonFields& add(const std::string& key, const std::string& value);
  JsonFields& add(const std::string& key, const char* value) { return add(key, std::string(value)); }
  JsonFields& add(const std::string& key, bool value);
  JsonFields& add(const std::string& key, const JsonFields& object);  // nested object
  JsonFields& add(const std::string& key, const std::vector<std::string>& strings);  // array of strings
  JsonFields& add(const std::string& key, const std::vector<double>& numbers);  // array of numbers (as add(key, double))
  // Appends all members of `other` after the ones added so far.
  JsonFields& append(const JsonFields& other);
  // "{...}" with the members added so far.
  std::string object() const;
  bool empty() const { return members_.empty(); }

 private:
  JsonFields& add_raw(const std::string& key, const std::string& json);
  std::string members_;
};

std::string json_quote(const std::string& text);

class ProgressReporter {
 public:
  // `enabled` is false on non-root ranks, which then print nothing.
  ProgressReporter(std::string program, bool enabled);
  // {"program":..,"phase":..,<fields>,"elapsed":..}
  void report(const std::string& phase, const JsonFields& fields = {});
  // Final line: {"program":..,"phase":"done",<results>,"timings":{..},"elapsed":..}
  void done(const JsonFields& results, const JsonFields& timings);
  double elapsed() const;

 private:
  std::string program_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace spidal
