// Long-option command lines (`--name value`, `--flag`) plus SPIDAL config.properties
// files (`-c file`, original key names mapped onto the long options; the command
// line overrides the file), `--help` text and validated typed getters.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace spidal {

struct OptionSpec {
  std::string name;                 // long name without "--"
  std::string value_name;           // e.g. "N", "FILE"; empty for a flag
  std::string help;
  std::optional<std::string> default_value;  // shown in --help; absent = no default
  std::vector<std::string> config_keys;      // SPIDAL config.properties keys for this option
  bool is_flag() const { return value_name.empty(); }
};

class Options {
 public:
  Options(std::string program, std::string summary, std::vector<OptionSpec> specs);

  // Parses the command line (and the config file named by -c/--config).
  // Throws HelpRequested for --help, UsageError for anything malformed.
  void parse(int argc, const char* const* argv);

  std::string help() const;
  const std::string& program() const { return program_; }

  // True when given on the command line or in the config file, or defaulted.
  bool has(const std::string& name) const;
  // Throw UsageError naming the option when missing or out of range.
  std::string get_string(const std::string& name) const;
  std::int64_t get_int(const std::string& name, std::int64_t min, std::int64_t max) const;
  double get_double(const std::string& name, double min, double max) const;
  bool get_flag(const std::string& name) const;

 private:
  const OptionSpec& spec(const std::string& name) const;
  std::optional<std::string> raw(const std::string& name) const;
  void read_config(const std::string& path, std::map<std::string, std::string>& into) const;

  std::string program_;
  std::string summary_;
  std::vector<OptionSpec> specs_;
  std::map<std::string, std::string> values_;  // option name -> value ("true"/"false" for flags)
};

// Parses a boolean as written in config files and flags: true/false/1/0/yes/no.
std::optional<bool> parse_bool(const std::string& text);

}  // namespace spidal
