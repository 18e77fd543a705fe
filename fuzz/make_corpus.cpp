// Writes the binary seed files of fuzz/corpus/ with the project's own writers, so every seed is a
// real file of its format (the YAML seeds are the repository's configs and workflows, copied):
//
//   fuzz_make_corpus OUT_DIR      (then: cp -r OUT_DIR/* fuzz/corpus/)
//
// Each seed is small (a few hundred bytes to a few KB). Seeds of harnesses that read a selector
// byte first (csv, checkpoint, flow_wire, climate_stream) start with one.
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cbed/shard_writer.h"
#include "cbed/space_group.h"
#include "climate/compressor.h"
#include "climate/stream.h"
#include "exadnn/data/hdf5.h"
#include "exadnn/io/checkpoint.h"
#include "exadnn/ops/factories.h"
#include "exadnn/train/config.h"
#include "tuple_protocol.h"
#include "wire.h"

namespace fs = std::filesystem;
using namespace exadnn;

namespace {

fs::path out_dir;

fs::path seed(const std::string& harness, const std::string& name) {
  fs::create_directories(out_dir / harness);
  return out_dir / harness / name;
}

void write_bytes(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `bytes` with `selector` in front (the harnesses that choose a mode by their first byte).
std::vector<uint8_t> with_selector(uint8_t selector, const std::vector<uint8_t>& bytes) {
  std::vector<uint8_t> out{selector};
  out.insert(out.end(), bytes.begin(), bytes.end());
  return out;
}

void put_be32(std::vector<uint8_t>& b, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) b.push_back(uint8_t(v >> s));
}

// An IDX file: magic (0, 0, type, ndim), big-endian extents, then `data` (already big-endian).
std::vector<uint8_t> idx(uint8_t type, const std::vector<uint32_t>& dims,
                         const std::vector<uint8_t>& data) {
  std::vector<uint8_t> b{0, 0, type, uint8_t(dims.size())};
  for (uint32_t d : dims) put_be32(b, d);
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

void write_gzip(const fs::path& path, const std::vector<uint8_t>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), unsigned(bytes.size()));
  gzclose(f);
}

void idx_seeds() {
  std::vector<uint8_t> pixels(3 * 4 * 4), labels{0, 1, 2}, floats, shorts;
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = uint8_t(i * 37);
  for (float v : {0.5f, -1.25f, 3.0f, 1e-3f, 7.0f, -0.0f}) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    put_be32(floats, u);
  }
  for (int v : {1, -2, 300, -400}) shorts.insert(shorts.end(), {uint8_t(v >> 8), uint8_t(v)});
  const auto images = idx(0x08, {3, 4, 4}, pixels);
  const auto label_file = idx(0x08, {3}, labels);
  write_bytes(seed("idx", "images-u8.idx"), images);
  write_bytes(seed("idx", "labels-u8.idx"), label_file);
  write_bytes(seed("idx", "f32-2x3.idx"), idx(0x0D, {2, 3}, floats));
  write_bytes(seed("idx", "i16-4.idx"), idx(0x0B, {4}, shorts));
  write_gzip(seed("idx", "images-u8.idx.gz"), images);
  write_gzip(seed("idx", "labels-u8.idx.gz"), label_file);
}

void csv_seeds() {
  const std::vector<std::pair<uint8_t, std::string>> files = {
      {0, "1,2,3\n4.5,-6,7e-3\n\n8,9,10\n"},
      {1 | 16, "a,b,label\n0.1,0.2,0\n0.3,0.4,1\n0.5,0.6,2\n"},
      {8 | 32, "1.5,2.5,0.25\n-1,inf,nan\n"},
      {1 | 2 | 4 | 8, "x;y;z\n1;2;3\n4;nan;-inf\n"},
  };
  int i = 0;
  for (const auto& [selector, text] : files)
    write_bytes(seed("csv", "table" + std::to_string(i++) + ".csv"),
                with_selector(selector, std::vector<uint8_t>(text.begin(), text.end())));
}

void hdf5_seeds() {
  const fs::path a = seed("hdf5", "xy.h5"), b = seed("hdf5", "groups.h5");
  data::write_hdf5(a.string(), {{"x", from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2})},
                                {"y", from_vector<int64_t>({0, 1, 1, 0}, {4})}});
  data::write_hdf5(b.string(), {{"train/x", from_vector<uint8_t>({1, 2, 3, 4}, {2, 2})},
                                {"train/y", from_vector<double>({0.5, 1.5}, {2})},
                                {"z", from_vector<int32_t>({-1, 7}, {2})}});
}

void checkpoint_seeds() {
  StateDict tensors;
  tensors.insert("w", from_vector<float>({0.5f, -1, 2, 3, 4, 5}, {2, 3}));
  tensors.insert("b", from_vector<float>({0, 1, 2}, {3}));
  tensors.insert("step", from_vector<int64_t>({42}, {1}));
  const fs::path tmp = out_dir / "model.ckpt";
  io::save_checkpoint(tmp.string(), tensors, {{"epoch", "1"}, {"config", "epochs: 2\n"}});
  const auto bytes = read_bytes(tmp);
  fs::remove(tmp);
  write_bytes(seed("checkpoint", "model-fixsum.ckpt"), with_selector(1, bytes));
  write_bytes(seed("checkpoint", "model.ckpt"), with_selector(0, bytes));
}

void flow_wire_seeds() {
  using namespace flow::detail;
  const Tensor t = from_vector<float>({1, 2, 3, 4}, {2, 2});
  const std::byte raw[3] = {std::byte{'a'}, std::byte{'b'}, std::byte{'c'}};
  auto save = [](const std::string& name, uint8_t selector, ByteWriter& w) {
    std::vector<uint8_t> bytes{selector};
    for (std::byte c : w.buffer()) bytes.push_back(uint8_t(c));
    write_bytes(seed("flow_wire", name), bytes);
  };
  ByteWriter v0, v1, put, producers, reply, header;
  write_value(v0, t);
  save("value-tensor.bin", 0, v0);
  write_value(v1, raw, 3);
  save("value-bytes.bin", 0, v1);
  put.put<uint8_t>(uint8_t(TupleOp::put));
  put.put<uint64_t>(7);
  put.put_string("result/0");
  write_value(put, t);
  save("request-put.bin", 1, put);
  producers.put<uint8_t>(uint8_t(TupleOp::producers));
  producers.put<uint64_t>(8);
  producers.put_string("");
  producers.put<uint8_t>(1);
  producers.put<uint32_t>(2);
  producers.put<int32_t>(1);
  producers.put<int32_t>(3);
  save("request-producers.bin", 1, producers);
  reply.put<uint64_t>(7);
  reply.put<uint8_t>(uint8_t(TupleStatus::ok));
  reply.put<uint8_t>(1);
  reply.put_string("result/0");
  write_value(reply, raw, 3);
  save("reply-tuple.bin", 2, reply);
  header.put<int32_t>(int32_t(DType::f32));
  header.put<uint32_t>(4);
  write_meta(header, DType::f32, Shape{2, 2});
  header.put<uint64_t>(16);
  header.put<uint8_t>(1);
  header.append(t.data_ptr(), 16);
  save("channel-header.bin", 3, header);
}

void climate_seeds() {
  const int ne = 2, p = 3, n = ne * (p + 1);
  climate::FaceField h(n), u(n);
  for (int f = 0; f < 6; ++f)
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) {
        h.at(f, r, c) = 1000 + 10 * std::sin(0.3 * r + f) * std::cos(0.2 * c);
        u.at(f, r, c) = std::cos(0.4 * (r + c) + f);
      }
  for (auto kind : {climate::CompressorKind::dct, climate::CompressorKind::zfp}) {
    const auto compressor = climate::make_compressor(kind, 4, h);
    const std::string name = climate::compressor_kind_name(kind);
    const fs::path tmp = out_dir / "run.czs";
    {
      climate::StreamWriter writer(tmp.string(), *compressor, ne, p, {"h", "u"});
      writer.write(0, 0.0, {h, u});
      writer.write(1, 3600.0, {u, h});
    }
    write_bytes(seed("climate_stream", name + ".czs"), with_selector(0, read_bytes(tmp)));
    fs::remove(tmp);
    const uint8_t selector = kind == climate::CompressorKind::dct ? 1 : 2;
    write_bytes(seed("climate_stream", name + "-payload.bin"),
                with_selector(selector, compressor->compress(h)));
  }
}

void cbed_seeds() {
  using namespace cbed::shard;
  ShardHeader h;
  h.height = h.width = 8;
  h.materials = 2;
  ShardRows rows;
  for (int i = 0; i < 2; ++i) {
    SampleLabels l;
    l.space_group = i == 0 ? 225 : 194;
    l.crystal_system = int(cbed::crystal_system(l.space_group));
    l.lattice = {4, 4, 4, 90, 90, 90};
    l.composition[13] = 2;
    l.formula = "Si";
    l.material_id = i;
    l.zone_axes = {"[100]", "[010]", "[001]"};
    rows.labels.push_back(l);
    rows.patterns.insert(rows.patterns.end(), 3 * 8 * 8, float(i) + 0.5f);
  }
  write_shard(MPI_COMM_NULL, seed("cbed_shard", "cbed_train_000.h5").string(), h, rows);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_corpus OUT_DIR\n");
    return 2;
  }
  out_dir = argv[1];
  idx_seeds();
  csv_seeds();
  hdf5_seeds();
  checkpoint_seeds();
  flow_wire_seeds();
  climate_seeds();
  cbed_seeds();
  const std::string config = train::default_config_yaml();
  std::ofstream(seed("train_config", "default.yaml")) << config;
  std::printf("seeds written under %s\n", out_dir.c_str());
  return 0;
}
