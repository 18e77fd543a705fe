#include "climate/stream.h"

#include <cstring>
#include <set>

#include "climate/compress_bytes.h"
#include "exadnn/core/error.h"

namespace climate {

using exadnn::Error;
using exadnn::detail::cat;

namespace {

constexpr char kMagic[8] = {'E', 'X', 'D', 'N', 'N', 'C', 'Z', 'S'};
constexpr std::uint32_t kStepTag = 0x50455453;  // "STEP" little-endian
constexpr std::size_t kMaxHeader = 1 << 20;
constexpr std::size_t kFixedHeader = 8 + 4 + 4;  // magic, version, header bytes

std::size_t record_header_bytes(std::size_t fields) {
  return 4 + 8 + 8 + 12 * fields + 4;
}

}  // namespace

StreamWriter::StreamWriter(const std::string& path, const Compressor& compressor, int ne, int p,
                           std::vector<std::string> fields)
    : path_(path), compressor_(compressor) {
  const std::string where = "StreamWriter " + path;
  if (ne < 1 || p < 1)
    throw Error(where, cat("mesh (Ne, p) = (", ne, ", ", p, "): both must be ≥ 1"));
  if (fields.empty() || fields.size() > 0xffff)
    throw Error(where, cat(fields.size(), " fields (1 to 65535)"));
  std::set<std::string> seen;
  for (const std::string& f : fields)
    if (f.empty() || f.size() > 0xffff || !seen.insert(f).second)
      throw Error(where, cat("field name '", f, "' is empty, too long or repeated"));
  header_ = {StreamWriter::kVersion,
             compressor.kind(),
             compressor.parameters(),
             ne,
             p,
             std::move(fields),
             0};

  std::vector<std::uint8_t> h;
  ByteWriter w(h);
  w.bytes(kMagic, sizeof kMagic);
  w.u32(kVersion);
  w.u32(0);  // the header's size, filled in below
  w.u8(static_cast<std::uint8_t>(header_.kind));
  w.u8(0), w.u8(0), w.u8(0);
  w.u32(static_cast<std::uint32_t>(ne));
  w.u32(static_cast<std::uint32_t>(p));
  w.u16(static_cast<std::uint16_t>(header_.parameters.size()));
  w.bytes(header_.parameters.data(), header_.parameters.size());
  w.u16(static_cast<std::uint16_t>(header_.fields.size()));
  for (const std::string& f : header_.fields) {
    w.u16(static_cast<std::uint16_t>(f.size()));
    w.bytes(f.data(), f.size());
  }
  const auto total = static_cast<std::uint32_t>(h.size() + 4);
  for (int i = 0; i < 4; ++i) h[12 + i] = static_cast<std::uint8_t>(total >> (8 * i));
  w.u32(crc32(h.data(), h.size()));
  header_.bytes = h.size();

  out_.open(path, std::ios::binary | std::ios::trunc);
  if (!out_) throw Error(where, "cannot create the file");
  out_.write(reinterpret_cast<const char*>(h.data()), static_cast<std::streamsize>(h.size()));
  out_.flush();
  if (!out_) throw Error(where, "writing the header failed");
  bytes_ = h.size();
}

std::uint64_t StreamWriter::write(std::uint64_t step, double time,
                                  const std::vector<FaceField>& fields) {
  if (fields.size() != header_.fields.size())
    throw Error("StreamWriter " + path_,
                cat("step ", step, ": ", fields.size(), " fields given, the header names ",
                    header_.fields.size()));
  const int n = header_.ne * (header_.p + 1);
  std::vector<std::vector<std::uint8_t>> payloads;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].n != n)
      throw Error("StreamWriter " + path_,
                  cat("step ", step, ", field '", header_.fields[i], "': face size ", fields[i].n,
                      ", the mesh's is ", n));
    payloads.push_back(compressor_.compress(fields[i]));
  }
  return write_payloads(step, time, payloads);
}

std::uint64_t StreamWriter::write_payloads(std::uint64_t step, double time,
                                           const std::vector<std::vector<std::uint8_t>>& payloads) {
  const std::string where = "StreamWriter " + path_;
  if (payloads.size() != header_.fields.size())
    throw Error(where, cat("step ", step, ": ", payloads.size(),
                           " payloads given, the header names ", header_.fields.size(), " fields"));
  std::vector<std::uint8_t> r;
  ByteWriter w(r);
  w.u32(kStepTag);
  w.u64(step);
  w.f64(time);
  for (const auto& p : payloads) {
    w.u64(p.size());
    w.u32(crc32(p.data(), p.size()));
  }
  w.u32(crc32(r.data(), r.size()));
  std::uint64_t bytes = r.size();
  out_.write(reinterpret_cast<const char*>(r.data()), static_cast<std::streamsize>(r.size()));
  for (const auto& p : payloads) {
    out_.write(reinterpret_cast<const char*>(p.data()), static_cast<std::streamsize>(p.size()));
    bytes += p.size();
  }
  out_.flush();
  if (!out_) throw Error(where, cat("writing step ", step, " failed (disk full?)"));
  bytes_ += bytes;
  return bytes;
}

StreamReader::StreamReader(const std::string& path) : path_(path) {
  const std::string where = "compressed stream " + path;
  in_.open(path, std::ios::binary);
  if (!in_) throw Error(where, "cannot open the file");
  in_.seekg(0, std::ios::end);
  size_ = static_cast<std::uint64_t>(in_.tellg());
  in_.seekg(0);

  std::vector<std::uint8_t> fixed(std::min<std::uint64_t>(size_, kFixedHeader));
  in_.read(reinterpret_cast<char*>(fixed.data()), static_cast<std::streamsize>(fixed.size()));
  if (fixed.size() < sizeof kMagic || std::memcmp(fixed.data(), kMagic, sizeof kMagic) != 0)
    throw Error(where, cat("not a climate compressed stream (no \"EXDNNCZS\" magic in its first ",
                           "bytes; ", size_, " bytes long)"));
  ByteReader fr(fixed.data(), fixed.size(), where);
  fr.bytes(sizeof kMagic, "the magic");
  header_.version = fr.u32("the version");
  if (header_.version != StreamWriter::kVersion)
    throw Error(where, cat("stream format version ", header_.version,
                           "; this reader knows version ", StreamWriter::kVersion));
  const std::uint32_t total = fr.u32("the header size");
  if (total < kFixedHeader + 4 || total > kMaxHeader)
    throw Error(where, cat("corrupt header: its size field says ", total, " bytes"));
  if (total > size_)
    throw Error(where, cat("truncated: the header needs ", total, " bytes, the file has ", size_));
  std::vector<std::uint8_t> h(total);
  in_.seekg(0);
  in_.read(reinterpret_cast<char*>(h.data()), total);
  const std::uint32_t stored = static_cast<std::uint32_t>(h[total - 4]) |
                               static_cast<std::uint32_t>(h[total - 3]) << 8 |
                               static_cast<std::uint32_t>(h[total - 2]) << 16 |
                               static_cast<std::uint32_t>(h[total - 1]) << 24;
  if (crc32(h.data(), total - 4) != stored) throw Error(where, "corrupt header: checksum mismatch");
  ByteReader r(h.data(), total - 4, where + ": header");
  r.bytes(kFixedHeader, "the magic");
  header_.kind = static_cast<CompressorKind>(r.u8("the compressor id"));
  r.u8("padding"), r.u8("padding"), r.u8("padding");
  header_.ne = static_cast<int>(r.u32("Ne"));
  header_.p = static_cast<int>(r.u32("p"));
  const std::uint16_t np = r.u16("the parameter bytes");
  const std::uint8_t* params = r.bytes(np, "the compressor parameters");
  header_.parameters.assign(params, params + np);
  const std::uint16_t nf = r.u16("the field count");
  for (int i = 0; i < nf; ++i) {
    const std::uint16_t len = r.u16("a field name's length");
    const std::uint8_t* name = r.bytes(len, "a field name");
    header_.fields.emplace_back(reinterpret_cast<const char*>(name), len);
  }
  if (r.left() != 0) throw Error(where, cat("corrupt header: ", r.left(), " unread bytes"));
  if (header_.ne < 1 || header_.p < 1 || nf < 1)
    throw Error(where,
                cat("corrupt header: mesh (", header_.ne, ", ", header_.p, "), ", nf, " fields"));
  try {
    decoder_ = make_decoder(header_.kind);
  } catch (const Error& e) {
    throw Error(where, cat("corrupt header: ", e.what()));
  }
  header_.bytes = total;
  pos_ = total;
}

bool StreamReader::next(StreamStep& out) {
  if (pos_ == size_) return false;
  const std::size_t nf = header_.fields.size();
  const std::string where =
      cat("compressed stream ", path_, ": record ", records_, " (at byte ", pos_, ")");
  const std::size_t rh = record_header_bytes(nf);
  if (size_ - pos_ < rh)
    throw Error(where,
                cat("truncated: its header needs ", rh, " bytes, ", size_ - pos_, " are left"));
  std::vector<std::uint8_t> h(rh);
  in_.seekg(static_cast<std::streamoff>(pos_));
  in_.read(reinterpret_cast<char*>(h.data()), static_cast<std::streamsize>(rh));
  ByteReader r(h.data(), rh, where);
  if (r.u32("the tag") != kStepTag) throw Error(where, "corrupt: no STEP tag");
  out.step = r.u64("the step");
  out.time = r.f64("the time");
  std::vector<std::uint64_t> sizes(nf);
  std::vector<std::uint32_t> crcs(nf);
  for (std::size_t i = 0; i < nf; ++i) {
    sizes[i] = r.u64("a payload size");
    crcs[i] = r.u32("a payload checksum");
  }
  const std::uint32_t stored = r.u32("the record checksum");
  if (crc32(h.data(), rh - 4) != stored)
    throw Error(where, "corrupt: the record header's checksum does not match");
  const std::string at = cat(where, ", step ", out.step);
  std::uint64_t left = size_ - pos_ - rh;
  out.payloads.assign(nf, {});
  for (std::size_t i = 0; i < nf; ++i) {
    if (sizes[i] > left)
      throw Error(at, cat("truncated: field '", header_.fields[i], "' needs ", sizes[i], " bytes, ",
                          left, " are left"));
    out.payloads[i].resize(sizes[i]);
    in_.read(reinterpret_cast<char*>(out.payloads[i].data()),
             static_cast<std::streamsize>(sizes[i]));
    if (!in_) throw Error(at, cat("reading field '", header_.fields[i], "' failed"));
    if (crc32(out.payloads[i].data(), sizes[i]) != crcs[i])
      throw Error(at, cat("corrupt: field '", header_.fields[i], "' fails its checksum"));
    left -= sizes[i];
  }
  out.offset = pos_;
  out.bytes = size_ - pos_ - left;
  pos_ += out.bytes;
  ++records_;
  return true;
}

std::vector<FaceField> StreamReader::decode(const StreamStep& step) {
  const int n = header_.ne * (header_.p + 1);
  std::vector<FaceField> fields;
  for (std::size_t i = 0; i < step.payloads.size() && i < header_.fields.size(); ++i) {
    const std::string where =
        cat("compressed stream ", path_, ": step ", step.step, ", field '", header_.fields[i], "'");
    try {
      fields.push_back(decoder_->decompress(step.payloads[i]));
    } catch (const Error& e) {
      throw Error(where, e.what());
    }
    if (fields.back().n != n)
      throw Error(where, cat("face size ", fields.back().n, ", the header's mesh (", header_.ne,
                             ", ", header_.p, ") has ", n));
  }
  return fields;
}

}  // namespace climate
