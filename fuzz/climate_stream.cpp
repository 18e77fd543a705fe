// Harness: the climate application's compressed-stream files (apps/climate stream.h), as
// climate_decompress reads them: header, then every record (at most 64) and its fields decoded.
// Every part of the file carries a CRC-32, so mutations mostly stop there; selectors 1 and 2 feed
// the bytes straight to the DCT and ZFP decoders, whose payloads come after the checksums.
//   byte 0: 0 the stream file, 1 a DCT payload, 2 a ZFP payload (modulo 3); the rest the bytes
#include "climate/compressor.h"
#include "climate/stream.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace exadnn;
  static const fuzz::InputFile file(".czs");
  if (size == 0) return 0;
  const int kind = data[0] % 3;
  if (kind != 0) {
    const auto decoder = climate::make_decoder(kind == 1 ? climate::CompressorKind::dct
                                                         : climate::CompressorKind::zfp);
    fuzz::accept_or_reject([&] { decoder->decompress(data + 1, size - 1); });
    return 0;
  }
  const std::string& path = file.write(data + 1, size - 1);
  fuzz::accept_or_reject([&] {
    climate::StreamReader reader(path);
    climate::StreamStep step;
    for (int records = 0; records < 64 && reader.next(step); ++records) reader.decode(step);
  });
  return 0;
}
