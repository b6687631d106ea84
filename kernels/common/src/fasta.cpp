#include "spidal/fasta.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "spidal/errors.hpp"

namespace spidal {
namespace {

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

std::string where(const std::string& path, int line) { return path + ":" + std::to_string(line) + ": "; }

}  // namespace

FastaReader::FastaReader(const std::string& path, const FastaAlphabet& alphabet)
    : path_(path), alphabet_name_(alphabet.name), file_(path, std::ios::binary) {
  if (!file_) throw InputError("cannot read FASTA file " + path + ": " + std::strerror(errno));
  for (const char letter : alphabet.letters) {
    const auto c = static_cast<unsigned char>(letter);
    allowed_[std::toupper(c)] = true;
    allowed_[std::tolower(c)] = true;
  }
}

std::string FastaReader::where(int line) const { return spidal::where(path_, line); }

bool FastaReader::next(FastaRecord& record) {
  record.residues.clear();
  bool in_record = false;
  while (at_header_ || std::getline(file_, line_)) {
    if (!at_header_) {
      ++line_number_;
      strip_trailing_space(line_);
      if (line_.empty()) continue;
    }
    at_header_ = false;
    if (line_[0] == '>') {
      if (in_record) {  // the next record's header: keep it for the next call
        at_header_ = true;
        break;
      }
      const auto id_begin = line_.find_first_not_of(" \t", 1);
      if (id_begin == std::string::npos) throw InputError(where(line_number_) + "header has no sequence id");
      const auto id_end = line_.find_first_of(" \t", id_begin);
      record.id = line_.substr(id_begin, id_end - id_begin);
      record.header_line = line_number_;
      in_record = true;
      continue;
    }
    if (!in_record) throw InputError(where(line_number_) + "sequence data before the first '>' header");
    for (std::size_t column = 0; column < line_.size(); ++column) {
      if (!allowed_[static_cast<unsigned char>(line_[column])]) {
        throw InputError(where(line_number_) + "character " + printable(line_[column]) + " (column " +
                         std::to_string(column + 1) + ") is not in the " + alphabet_name_ + " alphabet");
      }
    }
    record.residues += line_;
  }
  if (file_.bad()) throw InputError("error reading FASTA file " + path_);
  if (in_record && record.residues.empty()) {
    throw InputError(where(record.header_line) + "sequence '" + record.id + "' is empty");
  }
  return in_record;
}

void DuplicateIds::add(const FastaRecord& record) {
  seen_.emplace_back(std::hash<std::string>{}(record.id), record.header_line);
}

void DuplicateIds::check(const std::string& path, const FastaAlphabet& alphabet) {
  std::sort(seen_.begin(), seen_.end());
  std::set<int> colliding;  // header lines of records whose id hash another record shares
  for (std::size_t i = 1; i < seen_.size(); ++i) {
    if (seen_[i].first != seen_[i - 1].first) continue;
    colliding.insert(seen_[i - 1].second);
    colliding.insert(seen_[i].second);
  }
  if (colliding.empty()) return;
  std::map<std::string, int> first_line;  // id -> its first header line, for the colliding records
  FastaReader reader(path, alphabet);
  FastaRecord record;
  while (reader.next(record)) {
    if (!colliding.contains(record.header_line)) continue;
    const auto [first, inserted] = first_line.emplace(record.id, record.header_line);
    if (!inserted) {
      throw InputError(spidal::where(path, record.header_line) + "duplicate sequence id '" + record.id +
                       "' (first on line " + std::to_string(first->second) + ")");
    }
  }
}

std::vector<FastaRecord> read_fasta(const std::string& path, const FastaAlphabet& alphabet) {
  FastaReader reader(path, alphabet);
  DuplicateIds ids;
  std::vector<FastaRecord> records;
  FastaRecord record;
  while (reader.next(record)) {
    ids.add(record);
    records.push_back(std::move(record));
    record = FastaRecord{};
  }
  if (records.empty()) throw InputError("FASTA file " + path + " contains no sequences");
  ids.check(path, alphabet);
  return records;
}

}  // namespace spidal
