#include "spidal/options.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "spidal/errors.hpp"

namespace spidal {
namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\f\v");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t\r\f\v");
  return text.substr(first, last - first + 1);
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

}  // namespace

std::optional<bool> parse_bool(const std::string& text) {
  const std::string value = lower(trim(text));
  if (value == "true" || value == "1" || value == "yes" || value == "on") return true;
  if (value == "false" || value == "0" || value == "no" || value == "off") return false;
  return std::nullopt;
}

Options::Options(std::string program, std::string summary, std::vector<OptionSpec> specs)
    : program_(std::move(program)), summary_(std::move(summary)), specs_(std::move(specs)) {}

const OptionSpec& Options::spec(const std::string& name) const {
  for (const auto& option : specs_) {
    if (option.name == name) return option;
  }
  throw UsageError("unknown option --" + name);
}

void Options::read_config(const std::string& path, std::map<std::string, std::string>& into) const {
  std::ifstream file(path);
  if (!file) throw UsageError("cannot read config file " + path + ": " + std::strerror(errno));
  std::string line;
  int line_number = 0;
  while (std::getline(file, line)) {
    ++line_number;
    const std::string text = trim(line);
    if (text.empty() || text[0] == '#' || text[0] == '!') continue;
    // Java properties: key=value, key:value or key value.
    const auto separator = text.find_first_of("=: \t");
    if (separator == std::string::npos) {
      throw UsageError(path + ":" + std::to_string(line_number) + ": expected key=value");
    }
    const std::string key = trim(text.substr(0, separator));
    std::string value = trim(text.substr(separator + 1));
    if (!value.empty() && (value[0] == '=' || value[0] == ':')) value = trim(value.substr(1));
    // Keys of other SPIDAL programs share these files; only known keys matter.
    for (const auto& option : specs_) {
      if (std::find(option.config_keys.begin(), option.config_keys.end(), key) == option.config_keys.end()) continue;
      if (option.is_flag() && !parse_bool(value)) {
        throw UsageError(path + ":" + std::to_string(line_number) + ": " + key + " must be true or false, got '" +
                         value + "'");
      }
      into[option.name] = option.is_flag() ? (*parse_bool(value) ? "true" : "false") : value;
    }
  }
}

void Options::parse(int argc, const char* const* argv) {
  std::map<std::string, std::string> command_line;
  std::optional<std::string> config_path;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--help" || argument == "-h") throw HelpRequested(help());
    if (argument == "-c" || argument == "--config") {
      if (i + 1 >= argc) throw UsageError(argument + " needs a file name");
      config_path = argv[++i];
      continue;
    }
    if (argument.rfind("--", 0) != 0 || argument.size() == 2) throw UsageError("unexpected argument '" + argument + "'");
    std::string name = argument.substr(2);
    std::optional<std::string> inline_value;
    if (const auto equals = name.find('='); equals != std::string::npos) {
      inline_value = name.substr(equals + 1);
      name = name.substr(0, equals);
    }
    const OptionSpec& option = spec(name);
    if (option.is_flag()) {
      if (inline_value && !parse_bool(*inline_value)) throw UsageError("--" + name + " takes true or false");
      command_line[name] = inline_value ? (*parse_bool(*inline_value) ? "true" : "false") : "true";
    } else if (inline_value) {
      command_line[name] = *inline_value;
    } else {
      if (i + 1 >= argc) throw UsageError("--" + name + " needs a value (" + option.value_name + ")");
      command_line[name] = argv[++i];
    }
  }
  values_.clear();
  if (config_path) read_config(*config_path, values_);
  for (const auto& [name, value] : command_line) values_[name] = value;
}

std::optional<std::string> Options::raw(const std::string& name) const {
  const OptionSpec& option = spec(name);
  if (auto found = values_.find(name); found != values_.end()) return found->second;
  return option.default_value;
}

bool Options::has(const std::string& name) const { return raw(name).has_value(); }

std::string Options::get_string(const std::string& name) const {
  auto value = raw(name);
  if (!value) throw UsageError("missing required option --" + name);
  if (value->empty()) throw UsageError("--" + name + " is empty");
  return *value;
}

std::int64_t Options::get_int(const std::string& name, std::int64_t min, std::int64_t max) const {
  const std::string text = trim(get_string(name));
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw UsageError("--" + name + " must be an integer, got '" + text + "'");
  }
  if (value < min || value > max) {
    throw UsageError("--" + name + " must be in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " +
                     text);
  }
  return value;
}

double Options::get_double(const std::string& name, double min, double max) const {
  const std::string text = trim(get_string(name));
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(value)) {
    throw UsageError("--" + name + " must be a finite number, got '" + text + "'");
  }
  if (value < min || value > max) {
    std::ostringstream range;
    range << "--" << name << " must be in [" << min << ", " << max << "], got " << text;
    throw UsageError(range.str());
  }
  return value;
}

bool Options::get_flag(const std::string& name) const {
  auto value = raw(name);
  return value && *parse_bool(*value);
}

std::string Options::help() const {
  std::ostringstream text;
  text << "Usage: " << program_ << " [options]\n" << summary_ << "\n\nOptions:\n";
  for (const auto& option : specs_) {
    std::string left = "  --" + option.name + (option.is_flag() ? "" : " " + option.value_name);
    text << left;
    text << std::string(left.size() < 34 ? 34 - left.size() : 1, ' ') << option.help;
    if (option.default_value && !option.is_flag()) text << " (default " << *option.default_value << ")";
    if (!option.config_keys.empty()) {
      text << " [config:";
      for (const auto& key : option.config_keys) text << ' ' << key;
      text << ']';
    }
    text << '\n';
  }
  text << "  -c, --config FILE                 read a SPIDAL config.properties; the command line overrides it\n"
       << "  -h, --help                        show this text\n";
  return text.str();
}

}  // namespace spidal
