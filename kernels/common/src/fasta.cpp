#include "spidal/fasta.hpp"

#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <unordered_map>

#include "spidal/errors.hpp"

namespace spidal {
namespace {

std::array<bool, 256> allowed_table(std::string_view letters) {
  std::array<bool, 256> allowed{};
  for (const char letter : letters) {
    const auto c = static_cast<unsigned char>(letter);
    allowed[std::toupper(c)] = true;
    allowed[std::tolower(c)] = true;
  }
  return allowed;
}

std::string printable(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (std::isprint(u)) return std::string("'") + c + "'";
  char code[8];
  std::snprintf(code, sizeof code, "0x%02x", u);
  return code;
}

void strip_trailing_space(std::string& line) {
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
}

}  // namespace

std::vector<FastaRecord> read_fasta(const std::string& path, const FastaAlphabet& alphabet) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError("cannot read FASTA file " + path + ": " + std::strerror(errno));
  const auto allowed = allowed_table(alphabet.letters);
  const auto where = [&](int line) { return path + ":" + std::to_string(line) + ": "; };

  std::vector<FastaRecord> records;
  std::unordered_map<std::string, int> id_lines;  // id -> header line, to report duplicates
  const auto finish_record = [&] {
    if (!records.empty() && records.back().residues.empty()) {
      throw InputError(where(records.back().header_line) + "sequence '" + records.back().id + "' is empty");
    }
  };

  std::string line;
  int line_number = 0;
  while (std::getline(file, line)) {
    ++line_number;
    strip_trailing_space(line);
    if (line.empty()) continue;
    if (line[0] == '>') {
      finish_record();
      const auto id_begin = line.find_first_not_of(" \t", 1);
      if (id_begin == std::string::npos) throw InputError(where(line_number) + "header has no sequence id");
      const auto id_end = line.find_first_of(" \t", id_begin);
      FastaRecord record{line.substr(id_begin, id_end - id_begin), {}, line_number};
      const auto [previous, inserted] = id_lines.emplace(record.id, line_number);
      if (!inserted) {
        throw InputError(where(line_number) + "duplicate sequence id '" + record.id + "' (first on line " +
                         std::to_string(previous->second) + ")");
      }
      records.push_back(std::move(record));
      continue;
    }
    if (records.empty()) throw InputError(where(line_number) + "sequence data before the first '>' header");
    for (std::size_t column = 0; column < line.size(); ++column) {
      if (!allowed[static_cast<unsigned char>(line[column])]) {
        throw InputError(where(line_number) + "character " + printable(line[column]) + " (column " +
                         std::to_string(column + 1) + ") is not in the " + alphabet.name + " alphabet");
      }
    }
    records.back().residues += line;
  }
  if (file.bad()) throw InputError("error reading FASTA file " + path);
  finish_record();
  if (records.empty()) throw InputError("FASTA file " + path + " contains no sequences");
  return records;
}

}  // namespace spidal
