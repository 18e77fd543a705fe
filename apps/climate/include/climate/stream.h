// The compressed-stream file: the compressed fields of a run, step after step, decodable with
// nothing but the file (climate_decompress).
//
// Layout (version 1, little-endian):
//   header   magic "EXDNNCZS" (8 bytes), u32 version = 1, u32 header bytes (all of the header,
//            checksum included), u8 compressor id (compressor.h: 1 dct, 2 zfp), 3 bytes 0,
//            u32 Ne, u32 p, u16 parameter bytes + the compressor's parameters(),
//            u16 field count + per field (u16 length + name, UTF-8), u32 CRC-32 of all before it
//   records  one per output step: u32 tag "STEP", u64 step, f64 time [s], per field
//            (u64 payload bytes, u32 CRC-32 of the payload), u32 CRC-32 of the record's header;
//            then the fields' payloads in header order (each a Compressor payload: it carries
//            its own face size and parameters)
// A record is written and flushed whole, so a run killed mid-way leaves a readable prefix (the
// reader then names the cut record). Bytes stored per field = its payload plus its share of
// the record header (12 bytes per field, 24 per record) and of the file header.
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "climate/compressor.h"

namespace climate {

struct StreamHeader {
  std::uint32_t version = 0;
  CompressorKind kind = CompressorKind::dct;
  std::vector<std::uint8_t> parameters;  ///< the compressor's parameters() when written
  int ne = 0, p = 0;                     ///< the mesh: face size n = Ne (p+1)
  std::vector<std::string> fields;       ///< field names, in payload order
  std::uint64_t bytes = 0;               ///< the header's size in the file
};

struct StreamStep {
  std::uint64_t step = 0;
  double time = 0;                                  ///< [s]
  std::vector<std::vector<std::uint8_t>> payloads;  ///< one per field, header order
  std::uint64_t offset = 0;                         ///< where the record starts in the file
  std::uint64_t bytes = 0;                          ///< the record's size, header included
};

class StreamWriter {
 public:
  static constexpr std::uint32_t kVersion = 1;

  /// Creates (truncates) `path` and writes the header. `compressor` compresses every field and
  /// must outlive the writer. A field list that is empty, has an empty or duplicate name, or
  /// Ne/p < 1 is an exadnn::Error; so is a file that cannot be written (named).
  StreamWriter(const std::string& path, const Compressor& compressor, int ne, int p,
               std::vector<std::string> fields);

  /// Compresses and appends one output step; `fields` in the header's order, face size
  /// Ne (p+1) (else an exadnn::Error naming the field). Returns the record's bytes.
  std::uint64_t write(std::uint64_t step, double time, const std::vector<FaceField>& fields);
  /// Appends a step of payloads already compressed (by a compressor of the header's kind).
  std::uint64_t write_payloads(std::uint64_t step, double time,
                               const std::vector<std::vector<std::uint8_t>>& payloads);

  const StreamHeader& header() const { return header_; }
  /// The file's size so far.
  std::uint64_t bytes_written() const { return bytes_; }

 private:
  std::string path_;
  const Compressor& compressor_;
  StreamHeader header_;
  std::ofstream out_;
  std::uint64_t bytes_ = 0;
};

class StreamReader {
 public:
  /// Opens `path` and reads its header. A missing file, a foreign one (no magic), a newer
  /// version, a truncated or corrupt header is an exadnn::Error naming the file and the fault.
  explicit StreamReader(const std::string& path);

  const StreamHeader& header() const { return header_; }
  /// Reads the next step's record into `out`; false at the end of the file. A cut record or a
  /// checksum mismatch is an exadnn::Error naming the file, the record (index, step, offset)
  /// and the field.
  bool next(StreamStep& out);
  /// Decodes a step's payloads into fields (face size checked against the header's mesh).
  std::vector<FaceField> decode(const StreamStep& step);

 private:
  std::string path_;
  std::ifstream in_;
  std::uint64_t size_ = 0, pos_ = 0;
  long records_ = 0;
  StreamHeader header_;
  std::unique_ptr<Compressor> decoder_;
};

}  // namespace climate
