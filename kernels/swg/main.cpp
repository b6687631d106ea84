// swg: all-pairs Smith-Waterman-Gotoh distances of a FASTA file as a SPIDAL
// int16 matrix (little-endian) plus a labels file, or with --query the block of
// the query sequences' distances to every input sequence. See README.md.
#include <malloc.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <optional>
#include <stdexcept>

#include "all_pairs.hpp"
#include "queries.hpp"
#include "spidal/errors.hpp"
#include "spidal/fasta.hpp"
#include "spidal/mpi_env.hpp"
#include "spidal/options.hpp"
#include "spidal/output.hpp"
#include "spidal/progress.hpp"

namespace {

using spidal::OptionSpec;

std::vector<std::vector<swg::Residue>> encode_all(const std::vector<spidal::FastaRecord>& records,
                                                  swg::Alphabet alphabet) {
  std::vector<std::vector<swg::Residue>> sequences;
  sequences.reserve(records.size());
  for (const auto& record : records) sequences.push_back(swg::encode(record.residues, alphabet));
  return sequences;
}

std::int64_t total_residues(const std::vector<std::vector<swg::Residue>>& sequences) {
  std::int64_t total = 0;
  for (const auto& sequence : sequences) total += static_cast<std::int64_t>(sequence.size());
  return total;
}

spidal::Options make_options() {
  return spidal::Options(
      "swg",
      "All-pairs Smith-Waterman-Gotoh distances: writes an N×N int16 little-endian SPIDAL matrix\n"
      "(distance stored ×32767, see --distance) and OUTPUT.labels (ids in order); with --query, the\n"
      "Q×N block of each query's distances to the N input sequences and OUTPUT.labels (query ids).",
      {
          OptionSpec{"input", "FASTA", "sequences to compare (the columns)", std::nullopt, {"FastaFile"}},
          OptionSpec{"query", "FASTA",
                     "out-of-sample sequences: write the Q×N block of their distances to the input "
                     "sequences (row q, column j) instead of the N×N matrix",
                     std::nullopt, {}},
          OptionSpec{"output", "FILE", "distance matrix to write", std::nullopt, {"DistanceMatrixFile"}},
          OptionSpec{"alphabet", "dna|protein", "residue alphabet", "dna", {"Alphabet"}},
          OptionSpec{"matrix", "ednafull|blosum62", "substitution matrix (default: ednafull for dna, blosum62 for protein)",
                     std::nullopt, {"ScoringMatrix"}},
          OptionSpec{"gap-open", "N", "cost of a gap's first column (default: 16 dna, 9 protein)", std::nullopt,
                     {"GapOpen"}},
          OptionSpec{"gap-extend", "N", "cost of each further gap column (default: 4 dna, 1 protein)", std::nullopt,
                     {"GapExtension"}},
          OptionSpec{"distance", "spidal|shorter|global|score",
                     "1 − identical / local alignment length (spidal), / shorter sequence length (shorter), "
                     "or / global alignment length (global); or 1 − local score / mean of the two self "
                     "scores (score: score-only kernels, fastest)",
                     "spidal", {}},
          OptionSpec{"kernel", "auto|avx512|avx2|generic", "SIMD kernel", "auto", {}},
          OptionSpec{"block-size", "N", "sequences per tile side", "256", {}},
          OptionSpec{"memory-mb", "MB", "bound on one batch of tiles per rank", "64", {}},
      });
}

struct Settings {
  std::string input, output, kernel;
  std::optional<std::string> query;
  swg::ScoringScheme scheme;
  swg::DistanceKind distance = swg::DistanceKind::spidal;
  std::string distance_name;
  int block_size = 0;
  std::int64_t memory_bytes = 0;
};

Settings read_settings(const spidal::Options& options) {
  Settings settings;
  settings.input = options.get_string("input");
  settings.output = options.get_string("output");
  if (options.has("query")) settings.query = options.get_string("query");
  settings.kernel = options.get_string("kernel");
  settings.distance_name = options.get_string("distance");
  settings.distance = swg::parse_distance(settings.distance_name);
  const auto alphabet = swg::parse_alphabet(options.get_string("alphabet"));
  settings.scheme = swg::make_scoring(
      alphabet, options.has("matrix") ? options.get_string("matrix") : swg::default_matrix(alphabet),
      static_cast<int>(options.has("gap-open") ? options.get_int("gap-open", 1, swg::kMaxGapCost)
                                               : swg::default_gap_open(alphabet)),
      static_cast<int>(options.has("gap-extend") ? options.get_int("gap-extend", 0, swg::kMaxGapCost)
                                                 : swg::default_gap_extend(alphabet)));
  settings.block_size = static_cast<int>(options.get_int("block-size", 8, 4096));
  settings.memory_bytes = options.get_int("memory-mb", 1, 1 << 20) << 20;
  return settings;
}

int run_swg(spidal::MpiEnv& mpi, int argc, char** argv) {
  // MPI-IO's collective buffers come and go with every batch's write. glibc's adaptive
  // mmap threshold moves such blocks onto the heap after the first is freed, and the
  // heap then kept about 0.6 of a batch more resident (143 against 105 MB at
  // --memory-mb 64); a fixed threshold returns them to the system.
  ::mallopt(M_MMAP_THRESHOLD, 1 << 20);
  auto options = make_options();
  options.parse(argc, argv);
  const Settings settings = read_settings(options);
  spidal::check_output_writable(settings.output);
  swg::LaneKernel kernel;
  try {
    kernel = swg::select_lane_kernel(settings.kernel);
  } catch (const std::invalid_argument& error) {
    throw spidal::UsageError(std::string("--kernel: ") + error.what());
  }
  spidal::ProgressReporter progress("swg", mpi.is_root());

  // Every rank reads the FASTA files, so all ranks fail alike on bad input; rank 0
  // writes the labels (the ids of the matrix's rows) as it reads them.
  const swg::Alphabet alphabet = settings.scheme.alphabet;
  std::optional<spidal::AtomicTextOutput> labels;
  if (mpi.is_root()) labels.emplace(settings.output + ".labels");
  const bool rectangular = settings.query.has_value();
  std::vector<std::vector<swg::Residue>> sequences;
  {
    const auto records = spidal::read_fasta(settings.input, swg::fasta_alphabet(alphabet));
    sequences = encode_all(records, alphabet);
    if (labels && !rectangular) {
      for (const auto& record : records) labels->stream() << record.id << '\n';
    }
  }
  std::vector<bool> codes(settings.scheme.alphabet_size, false);
  swg::mark_codes(sequences, codes);
  swg::QueryScan queries;
  if (rectangular) {
    queries = swg::scan_queries(*settings.query, alphabet, settings.scheme.alphabet_size,
                                labels ? &labels->stream() : nullptr);
    for (std::size_t code = 0; code < codes.size(); ++code) codes[code] = codes[code] || queries.codes[code];
  }
  const auto n = static_cast<std::int64_t>(sequences.size()), q = queries.count;
  const std::int64_t residues = total_residues(sequences);
  std::int64_t pairs = n * (n - 1) / 2, cells_total = 0;  // cells: Σ len(a)·len(b) over pairs
  if (rectangular) {
    pairs = q * n;
    cells_total = queries.residues * residues;
  } else {
    std::int64_t residue_squares = 0;
    for (const auto& sequence : sequences) residue_squares += static_cast<std::int64_t>(sequence.size() * sequence.size());
    cells_total = (residues * residues - residue_squares) / 2;
  }
  auto read_fields = spidal::JsonFields().add("sequences", n);
  if (rectangular) read_fields.add("queries", q);
  progress.report("read", read_fields.add("residues", residues)
                              .add("kernel", kernel.name)
                              .add("distance", settings.distance_name)
                              .add("ranks", mpi.size()));
  const double read_seconds = progress.elapsed();

  const auto plan = rectangular
                        ? swg::TilePlan::rectangular(q, n, settings.block_size, mpi.size(), mpi.rank(),
                                                     settings.memory_bytes)
                        : swg::TilePlan::symmetric(n, settings.block_size, mpi.size(), mpi.rank(),
                                                   settings.memory_bytes);
  const swg::TileAligner aligner(sequences, swg::marked_codes(codes), settings.scheme, settings.distance, kernel,
                                 plan);
  std::optional<swg::QueryStream> query_stream;
  if (rectangular) query_stream.emplace(*settings.query, alphabet);

  // All ranks write one temporary file named after rank 0's pid; rank 0 renames it.
  long root_pid = ::getpid();
  MPI_Bcast(&root_pid, 1, MPI_LONG, 0, mpi.comm());
  std::optional<spidal::PendingFile> matrix_file;
  if (mpi.is_root()) matrix_file.emplace(settings.output, static_cast<pid_t>(root_pid));
  const std::string temporary = spidal::temporary_path(settings.output, static_cast<pid_t>(root_pid));
  spidal::Int16MatrixWriter writer(mpi.comm(), temporary, plan.rows().items, n, spidal::ByteOrder::little);

  double align_seconds = 0, write_seconds = 0;
  std::int64_t cells_done = 0;
  std::vector<swg::TileDistances> tiles;  // one batch's, its buffers reused by the next
  for (const auto& batch : plan.batches()) {
    const double start = MPI_Wtime();
    const auto [first_row, end_row] = plan.row_span(batch);
    const swg::RowWindow rows =
        query_stream && first_row < end_row ? query_stream->window(first_row, end_row) : swg::RowWindow{0, sequences};
    aligner.compute(batch, rows, tiles);
    const double aligned = MPI_Wtime();
    writer.write(swg::matrix_blocks(tiles, plan));
    align_seconds += aligned - start;
    write_seconds += MPI_Wtime() - aligned;
    std::int64_t batch_cells = aligner.cells(batch, rows);
    MPI_Request sum = MPI_REQUEST_NULL;
    MPI_Iallreduce(MPI_IN_PLACE, &batch_cells, 1, MPI_INT64_T, MPI_SUM, mpi.comm(), &sum);
    spidal::wait_yielding(sum);
    cells_done += batch_cells;
    progress.report("align", spidal::JsonFields()
                                 .add("cells_done", cells_done)
                                 .add("cells_total", cells_total)
                                 .add("fraction", cells_total > 0 ? static_cast<double>(cells_done) / cells_total : 1.0));
  }
  writer.close();
  MPI_Request barrier = MPI_REQUEST_NULL;
  MPI_Ibarrier(mpi.comm(), &barrier);
  spidal::wait_yielding(barrier);

  if (mpi.is_root()) {
    labels->commit();
    matrix_file->commit();
  }
  const double align_total = progress.elapsed() - read_seconds;
  auto done_fields = spidal::JsonFields().add("sequences", n);
  if (rectangular) done_fields.add("queries", q);
  progress.done(done_fields.add("pairs", pairs)
                    .add("cells", cells_done)
                    .add("gcups", align_total > 0 ? cells_done / align_total / 1e9 : 0.0)
                    .add("output", settings.output),
                spidal::JsonFields()
                    .add("read", read_seconds)
                    .add("align", align_seconds)
                    .add("write", write_seconds)
                    .add("total", progress.elapsed()));
  return spidal::kExitOk;
}

}  // namespace

int main(int argc, char** argv) { return spidal::run_main(argc, argv, run_swg); }
