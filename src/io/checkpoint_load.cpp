// Checkpoint reading: the checksum first, then every header field against the data section.
// Nothing in the file is trusted: sizes are compared without overflow, tensors must lie back to
// back in header order and cover the data exactly, so no two tensors share bytes and no byte
// outside the data section is ever read.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "exadnn/io/checkpoint.h"
#include "exadnn/ops/factories.h"
#include "io/checkpoint_format.h"

namespace exadnn::io {
namespace {

using nlohmann::json;

// Throws the loader's Error: "<path>: <what>".
[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error("load_checkpoint", detail::cat(path, ": ", what));
}

// JSON type names for messages ("a string", "a number").
std::string kind(const json& j) {
  if (j.is_null()) return "null";
  if (j.is_number_float()) return detail::cat("the number ", j.dump());
  if (j.is_number_integer()) return detail::cat("the integer ", j.dump());
  return detail::cat("a ", j.type_name());
}

// One tensor entry of the header, checked against the data section [0, data_size).
struct EntryReader {
  const std::string& path;
  size_t index;  // position in "tensors"
  const json& entry;
  std::string name;  // once read

  // "header field tensors[3] ('rng').offset"
  std::string field(const char* key) const {
    return detail::cat("header field tensors[", index, "]", name.empty() ? "" : " ('" + name + "')",
                       ".", key);
  }
  const json& at(const char* key) const {
    const auto it = entry.find(key);
    if (it == entry.end()) fail(path, detail::cat(field(key), " is missing"));
    return *it;
  }
  uint64_t unsigned_at(const char* key) const {
    const json& v = at(key);
    if (!v.is_number_unsigned())
      fail(path, detail::cat(field(key), " must be a non-negative integer, got ", kind(v)));
    return v.get<uint64_t>();
  }
};

Shape read_shape(const EntryReader& r, DType dtype, uint64_t* nbytes) {
  const json& s = r.at("shape");
  if (!s.is_array())
    fail(r.path, detail::cat(r.field("shape"), " must be an array of extents, got ", kind(s)));
  if (s.size() > static_cast<size_t>(kMaxDims))
    fail(r.path,
         detail::cat(r.field("shape"), " has ", s.size(), " extents (at most ", kMaxDims, ")"));
  Shape shape;
  uint64_t bytes = dtype_size(dtype);
  uint64_t span = bytes;  // the same over the nonzero extents: the strides must fit an int64 too
  bool overflow = false;
  for (const json& e : s) {
    if (!e.is_number_unsigned() || e.get<uint64_t>() > uint64_t{INT64_MAX})
      fail(r.path, detail::cat(r.field("shape"), " ", s.dump(),
                               ": every extent must be a non-negative integer, got ", kind(e)));
    const uint64_t extent = e.get<uint64_t>();
    overflow = overflow || __builtin_mul_overflow(bytes, extent, &bytes) ||
               __builtin_mul_overflow(span, std::max<uint64_t>(extent, 1), &span) ||
               span > uint64_t{INT64_MAX};
    shape.push_back(static_cast<int64_t>(extent));
  }
  if (overflow) fail(r.path, detail::cat(r.field("shape"), " ", shape, " is impossibly large"));
  *nbytes = bytes;
  return shape;
}

std::map<std::string, std::string> read_metadata(const std::string& path, const json& header) {
  const auto it = header.find("metadata");
  if (it == header.end()) fail(path, "header field 'metadata' is missing");
  if (!it->is_object())
    fail(path, detail::cat("header field 'metadata' must be an object, got ", kind(*it)));
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : it->items()) {
    if (!value.is_string())
      fail(path, detail::cat("metadata '", key, "' must be a string, got ", kind(value)));
    out.emplace(key, value.get<std::string>());
  }
  return out;
}

}  // namespace

Checkpoint load_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXADNN_CHECK(in.good(), "load_checkpoint", "cannot open ", path);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  if (in.bad()) fail(path, "read error");
  constexpr size_t kFixed = internal::kPreambleBytes + internal::kChecksumBytes;
  if (bytes.size() < kFixed || std::memcmp(bytes.data(), internal::kMagic, 8) != 0)
    fail(path, "not an exadnn checkpoint (bad magic number)");
  uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
  if (internal::fnv1a(bytes.data(), bytes.size() - 8) != stored)
    fail(path, "checksum mismatch: the file is truncated or corrupt");
  uint32_t version = 0;
  std::memcpy(&version, bytes.data() + 8, 4);
  if (version > kCheckpointVersion)
    fail(path, detail::cat("format version ", version, " is newer than this exadnn reads (",
                           kCheckpointVersion, ")"));
  if (version == 0) fail(path, "format version 0 was never written by exadnn");
  uint64_t header_size = 0;
  std::memcpy(&header_size, bytes.data() + 12, 8);
  if (header_size > bytes.size() - kFixed)
    fail(path, detail::cat("header size ", header_size, " runs past the end of the file (",
                           bytes.size(), " bytes)"));
  const size_t data_start = internal::kPreambleBytes + header_size;
  const uint64_t data_size = bytes.size() - internal::kChecksumBytes - data_start;

  json header;
  try {
    header = json::parse(bytes.begin() + internal::kPreambleBytes,
                         bytes.begin() + static_cast<std::ptrdiff_t>(data_start));
  } catch (const json::parse_error& e) {
    fail(path, detail::cat("the header is not valid JSON (at header byte ", e.byte, ")"));
  } catch (const json::exception& e) {  // e.g. a number too large for a double (406)
    fail(path, detail::cat("the header is not valid JSON: ", e.what()));
  }
  if (!header.is_object())
    fail(path, detail::cat("the header must be an object, got ", kind(header)));

  Checkpoint out;
  out.path = path;
  out.metadata = read_metadata(path, header);
  const auto tensors = header.find("tensors");
  if (tensors == header.end()) fail(path, "header field 'tensors' is missing");
  if (!tensors->is_array())
    fail(path, detail::cat("header field 'tensors' must be an array, got ", kind(*tensors)));
  uint64_t end = 0;  // where the previous tensor's bytes end
  for (size_t i = 0; i < tensors->size(); ++i) {
    const json& entry = (*tensors)[i];
    EntryReader r{path, i, entry, ""};
    if (!entry.is_object())
      fail(path, detail::cat("header field tensors[", i, "] must be an object, got ", kind(entry)));
    const json& name = r.at("name");
    if (!name.is_string() || name.get<std::string>().empty())
      fail(path, detail::cat(r.field("name"), " must be a non-empty string, got ", kind(name)));
    r.name = name.get<std::string>();
    if (out.tensors.contains(r.name))
      fail(path, detail::cat(r.field("name"), ": a second tensor named '", r.name, "'"));
    const json& dtype_json = r.at("dtype");
    if (!dtype_json.is_string())
      fail(path, detail::cat(r.field("dtype"), " must be a string, got ", kind(dtype_json)));
    DType dtype = DType::f32;
    try {
      dtype = parse_dtype(dtype_json.get<std::string>());
    } catch (const Error&) {
      fail(path,
           detail::cat(r.field("dtype"), ": unknown dtype '", dtype_json.get<std::string>(), "'"));
    }
    uint64_t expected_bytes = 0;
    const Shape shape = read_shape(r, dtype, &expected_bytes);
    const uint64_t offset = r.unsigned_at("offset");
    const uint64_t nbytes = r.unsigned_at("bytes");
    if (nbytes != expected_bytes)
      fail(path, detail::cat(r.field("bytes"), " is ", nbytes, " but a ", dtype_name(dtype), " ",
                             shape, " tensor has ", expected_bytes, " bytes"));
    if (offset != end)
      fail(path, detail::cat(r.field("offset"), " is ", offset, " but the tensor must start at ",
                             end, ", where the previous one ends"));
    if (nbytes > data_size - end)  // end <= data_size holds: no overflow
      fail(path, detail::cat("tensor '", r.name, "' (", nbytes, " bytes at offset ", offset,
                             ") does not fit in the data section of ", data_size, " bytes"));
    Tensor t = empty(shape, dtype);
    if (nbytes) std::memcpy(t.data_ptr(), bytes.data() + data_start + offset, nbytes);
    out.tensors.insert(r.name, t);
    end += nbytes;
  }
  if (end != data_size)
    fail(path, detail::cat("the data section holds ", data_size, " bytes but its tensors ", end,
                           " (", data_size - end, " bytes belong to no tensor)"));
  return out;
}

}  // namespace exadnn::io
