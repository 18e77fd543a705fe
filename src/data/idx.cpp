// IDX reader: a 4-byte magic (0, 0, type code, number of dims), big-endian u32 extents, then the
// values, big-endian, row-major. Payloads are read straight into the tensor's memory.
#include "exadnn/data/idx.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>

#include "data/byte_stream.h"
#include "exadnn/data/transforms.h"
#include "exadnn/ops/factories.h"

namespace exadnn::data {
namespace {

constexpr const char* kWhere = "IDX";

struct IdxType {
  uint8_t code;
  const char* name;
  size_t bytes;
  DType dtype;  // the tensor's dtype
};

constexpr IdxType kTypes[] = {
    {0x08, "u8", 1, DType::u8},   {0x09, "i8", 1, DType::i32},  {0x0B, "i16", 2, DType::i32},
    {0x0C, "i32", 4, DType::i32}, {0x0D, "f32", 4, DType::f32}, {0x0E, "f64", 8, DType::f64},
};

const IdxType* find_type(uint8_t code) {
  for (const IdxType& t : kTypes)
    if (t.code == code) return &t;
  return nullptr;
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// What a magic number announces, for messages: "IDX u8, 3 dims".
std::string describe_magic(uint32_t magic) {
  const uint8_t code = (magic >> 8) & 0xff, dims = magic & 0xff;
  if ((magic >> 16) != 0 || !find_type(code)) return "not an IDX header";
  if (magic == 0x803) return "IDX u8 images, 3 dims";
  if (magic == 0x801) return "IDX u8 labels, 1 dim";
  return detail::cat("IDX ", find_type(code)->name, ", ", int(dims), dims == 1 ? " dim" : " dims");
}

uint32_t big_endian_u32(const unsigned char* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

struct Header {
  uint32_t magic = 0;
  const IdxType* type = nullptr;
  Shape shape;
};

std::string gzip_note(const internal::ByteStream& in) {
  return in.truncated() ? " (the gzip stream ends early)" : "";
}

// Reads and checks the header; `expected_magic` 0 accepts any valid IDX header.
Header read_header(internal::ByteStream& in, uint32_t expected_magic) {
  const std::string& path = in.path();
  unsigned char m[4];
  const size_t got = in.read(m, 4);
  EXADNN_CHECK(got == 4, kWhere, path, ": truncated: the file ends inside the IDX header (", got,
               " of 4 magic bytes)", gzip_note(in));
  Header h;
  h.magic = big_endian_u32(m);
  if (expected_magic != 0) {
    EXADNN_CHECK(h.magic == expected_magic, kWhere, path, ": wrong magic number ", hex32(h.magic),
                 " (", describe_magic(h.magic), "): expected ", hex32(expected_magic), " (",
                 describe_magic(expected_magic), ")");
  }
  EXADNN_CHECK(m[0] == 0 && m[1] == 0, kWhere, path, ": wrong magic number ", hex32(h.magic),
               ": not an IDX file (its first two bytes must be zero)");
  h.type = find_type(m[2]);
  EXADNN_CHECK(h.type != nullptr, kWhere, path, ": wrong magic number ", hex32(h.magic),
               ": unknown IDX type code ", hex32(m[2]).substr(8),
               " (expected 08, 09, 0b, 0c, 0d or 0e)");
  const int dims = m[3];
  EXADNN_CHECK(dims >= 1 && dims < kMaxDims, kWhere, path, ": wrong magic number ", hex32(h.magic),
               ": ", dims, " dimensions (expected 1 to ", kMaxDims - 1, ")");
  unsigned char ext[4 * kMaxDims];
  const size_t want = 4 * static_cast<size_t>(dims);
  const size_t got_ext = in.read(ext, want);
  EXADNN_CHECK(got_ext == want, kWhere, path, ": truncated: the file ends inside the IDX header (",
               4 + got_ext, " of ", 4 + want, " bytes)", gzip_note(in));
  for (int d = 0; d < dims; ++d) h.shape.push_back(big_endian_u32(ext + 4 * d));
  // 2^31 values per axis and 2^40 bytes in all are far beyond any real file: a corrupt header.
  // Zero extents count as 1 here: the others still make the tensor's strides.
  uint64_t bytes = h.type->bytes;
  for (int64_t e : h.shape) {
    const bool wraps = __builtin_mul_overflow(bytes, std::max<uint64_t>(e, 1), &bytes);
    EXADNN_CHECK(e < (int64_t{1} << 31) && !wraps && bytes < (uint64_t{1} << 40), kWhere, path,
                 ": corrupt header: extents ", h.shape, " are implausibly large");
  }
  return h;
}

// "60000 images of 28x28"
std::string promise(const Header& h, const char* what) {
  std::string s = detail::cat(h.shape[0], " ", what);
  if (h.shape.size() > 1) {
    s += " of ";
    for (int64_t d = 1; d < h.shape.size(); ++d) s += detail::cat(d > 1 ? "x" : "", h.shape[d]);
  }
  return s;
}

// Reads h.shape's values into a new tensor; `what` words the truncation message.
Tensor read_payload(internal::ByteStream& in, const Header& h, const std::string& promised,
                    const char* unit) {
  const std::string& path = in.path();
  const int64_t count = h.shape.numel();
  const size_t bytes = static_cast<size_t>(count) * h.type->bytes;
  // Checked before the tensor is allocated: a corrupt header must not ask for gigabytes.
  EXADNN_CHECK(bytes <= in.max_remaining(), kWhere, path, ": truncated: header promises ", promised,
               " but the file ",
               in.gzip() ? detail::cat("(gzip, inflating to at most ", in.max_remaining(),
                                       " bytes) cannot hold them")
                         : detail::cat("holds ", in.max_remaining(), " bytes of ", unit));
  Tensor out = empty(h.shape, h.type->dtype);
  // Same-size types land in the tensor directly; i8 and i16 go through a buffer and widen.
  std::vector<unsigned char> narrow;
  unsigned char* raw = static_cast<unsigned char*>(out.data_ptr());
  if (h.type->bytes != dtype_size(h.type->dtype)) {
    narrow.resize(bytes);
    raw = narrow.data();
  }
  const size_t got = in.read(raw, bytes);
  EXADNN_CHECK(got == bytes, kWhere, path, ": truncated: header promises ", promised,
               " but the file holds ", got, " bytes of ", unit, gzip_note(in));
  const uint64_t extra = in.skip_rest();
  EXADNN_CHECK(extra == 0 && !in.truncated(), kWhere, path,
               in.truncated()
                   ? detail::cat(": truncated: the gzip stream ends before its trailer")
                   : detail::cat(": corrupt: ", extra,
                                 " bytes follow the data the header promises (", promised, ")"));
  if (std::endian::native == std::endian::little) {
    switch (h.type->code) {
      case 0x0C:
      case 0x0D: {
        auto* v = static_cast<uint32_t*>(out.data_ptr());
        for (int64_t i = 0; i < count; ++i) v[i] = __builtin_bswap32(v[i]);
        break;
      }
      case 0x0E: {
        auto* v = static_cast<uint64_t*>(out.data_ptr());
        for (int64_t i = 0; i < count; ++i) v[i] = __builtin_bswap64(v[i]);
        break;
      }
      default:
        break;
    }
  }
  if (h.type->code == 0x09 || h.type->code == 0x0B) {
    auto* v = out.data<int32_t>();
    for (int64_t i = 0; i < count; ++i)
      v[i] = h.type->code == 0x09
                 ? static_cast<int8_t>(narrow[i])
                 : static_cast<int16_t>((uint16_t(narrow[2 * i]) << 8) | narrow[2 * i + 1]);
  }
  return out;
}

}  // namespace

Tensor read_idx(const std::string& path, NonFinite non_finite) {
  internal::ByteStream in(path, kWhere);
  const Header h = read_header(in, 0);
  Tensor out =
      read_payload(in, h,
                   detail::cat(h.shape, " ", h.type->name, " values (",
                               h.shape.numel() * static_cast<int64_t>(h.type->bytes), " bytes)"),
                   "data");
  if (non_finite == NonFinite::reject) check_finite(out, path, "the IDX data");
  return out;
}

Tensor read_idx_images(const std::string& path) {
  internal::ByteStream in(path, kWhere);
  const Header h = read_header(in, 0x803);
  const Tensor images = read_payload(in, h, promise(h, "images"), "pixels");
  return images.reshape({h.shape[0], 1, h.shape[1], h.shape[2]});
}

Tensor read_idx_labels(const std::string& path) {
  internal::ByteStream in(path, kWhere);
  const Header h = read_header(in, 0x801);
  const Tensor labels = read_payload(in, h, promise(h, "labels"), "labels");
  // u8 -> i64, the class-index dtype of the losses.
  Tensor out = empty({h.shape[0]}, DType::i64);
  const uint8_t* src = labels.data<uint8_t>();
  int64_t* dst = out.data<int64_t>();
  for (int64_t i = 0; i < h.shape[0]; ++i) dst[i] = src[i];
  return out;
}

TensorDataset load_idx_dataset(const std::string& images_path, const std::string& labels_path,
                               Pixels pixels) {
  const Tensor images = read_idx_images(images_path);
  const Tensor labels = read_idx_labels(labels_path);
  EXADNN_CHECK(images.size(0) > 0, kWhere, images_path,
               ": no examples: the header promises 0 images (an empty dataset cannot train or be "
               "scored)");
  EXADNN_CHECK(images.size(0) == labels.size(0), kWhere, labels_path, ": label count ",
               labels.size(0), " does not match the image count ", images.size(0), " of ",
               images_path);
  if (pixels == Pixels::u8) return TensorDataset(images, labels);
  Generator unused;
  return TensorDataset(ToFloat(1.0 / 255.0).apply(images, unused), labels);
}

TensorDataset load_mnist(const std::string& dir, Split split, Pixels pixels) {
  const std::string prefix = split == Split::train ? "train" : "t10k";
  // Distributions spell the files "train-images-idx3-ubyte" or "train-images.idx3-ubyte", with
  // or without ".gz".
  const auto find = [&](const std::string& kind, const std::string& idx) {
    for (const char* sep : {"-", "."})
      for (const char* ext : {".gz", ""}) {
        const std::filesystem::path p =
            std::filesystem::path(dir) / (prefix + "-" + kind + sep + idx + "-ubyte" + ext);
        if (std::filesystem::is_regular_file(p)) return p.string();
      }
    throw Error(kWhere, detail::cat(dir, ": no ", prefix, "-", kind, "-", idx, "-ubyte[.gz] (the ",
                                    split == Split::train ? "train" : "test",
                                    " split of an MNIST-style dataset)"));
  };
  const std::string images = find("images", "idx3");
  const std::string labels = find("labels", "idx1");
  return load_idx_dataset(images, labels, pixels);
}

}  // namespace exadnn::data
