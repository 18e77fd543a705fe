// Harness: CSV files of numbers. The first byte chooses the reader's options (header, label
// column by position or name, label dtype, non-finite values, delimiter); the rest is the file.
#include "exadnn/data/csv.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace exadnn;
  static const fuzz::InputFile file(".csv");
  if (size == 0) return 0;
  const uint8_t choice = data[0];
  const std::string& path = file.write(data + 1, size - 1);
  data::CsvOptions options;
  options.header(choice & 1).allow_non_finite(choice & 2).delimiter(choice & 4 ? ';' : ',');
  if (choice & 8) options.label_column(int64_t(-1));
  if ((choice & 16) && (choice & 1)) options.label_column(std::string("label"));
  if (choice & 32) options.label_dtype(choice & 64 ? DType::f64 : DType::f32);
  fuzz::accept_or_reject([&] { data::read_csv(path, options); });
  if (options.has_label()) fuzz::accept_or_reject([&] { data::load_csv_dataset(path, options); });
  return 0;
}
