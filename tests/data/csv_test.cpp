// CSV reader: header and label choices, delimiters, gzip, and the error messages.
#include "exadnn/data/csv.h"
#include "data_test_util.h"
#include "testing.h"

namespace exadnn::data {
namespace {

using exadnn::testing::TempDir;
using exadnn::testing::values;

TEST(Csv, HeaderAndLabelByName) {
  TempDir dir;
  const std::string path = dir.file("iris.csv");
  testing::write_text(path,
                      "sepal, \"petal\" ,species\r\n"
                      "5.1,3.5,0\r\n"
                      "\r\n"
                      "  4.9 ,-3e-1, 2\r\n"
                      "+6,1.25e2,1\r\n");
  const CsvTable t = read_csv(path, CsvOptions().header().label_column("species"));
  EXPECT_EQ(t.features.dtype(), DType::f32);
  EXPECT_EQ(t.features.shape(), (Shape{3, 2}));
  EXPECT_EQ(values(t.features), (std::vector<double>{5.1f, 3.5f, 4.9f, -0.3f, 6.0f, 125.0f}));
  EXPECT_EQ(t.labels.dtype(), DType::i64);
  EXPECT_EQ(values(t.labels), (std::vector<double>{0, 2, 1}));
  EXPECT_EQ(t.feature_names, (std::vector<std::string>{"sepal", "petal"}));
  EXPECT_EQ(t.label_name, "species");
}

TEST(Csv, LabelByPositionDelimiterAndNoHeader) {
  TempDir dir;
  const std::string path = dir.file("data.tsv");
  testing::write_text(path, "1\t10\t0.5\n2\t20\t-0.5\n3\t30\t1.5");  // no final newline
  const CsvTable first =
      read_csv(path, CsvOptions().delimiter('\t').label_column(0).label_dtype(DType::i64));
  EXPECT_EQ(values(first.labels), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(values(first.features), (std::vector<double>{10, 0.5, 20, -0.5, 30, 1.5}));
  EXPECT_TRUE(first.feature_names.empty());
  const CsvTable last =
      read_csv(path, CsvOptions().delimiter('\t').label_column(-1).label_dtype(DType::f32));
  EXPECT_EQ(last.labels.dtype(), DType::f32);
  EXPECT_EQ(values(last.labels), (std::vector<double>{0.5, -0.5, 1.5}));
  const CsvTable none = read_csv(path, CsvOptions().delimiter('\t'));
  EXPECT_FALSE(none.labels.defined());
  EXPECT_EQ(none.features.shape(), (Shape{3, 3}));
}

TEST(Csv, GzipAndDataset) {
  TempDir dir;
  const std::string text = "label,a,b\n1,0.25,0.5\n0,1,2\n";
  const std::string path = dir.file("train.csv.gz");
  testing::write_gzip(path, std::vector<unsigned char>(text.begin(), text.end()));
  const TensorDataset ds = load_csv_dataset(path, CsvOptions().header().label_column(0));
  EXPECT_EQ(ds.size(), 2);
  EXPECT_EQ(ds.input_shape(), (Shape{2}));
  EXPECT_EQ(values(ds.get(0).inputs), (std::vector<double>{0.25, 0.5}));
  EXPECT_EQ(values(ds.targets()), (std::vector<double>{1, 0}));
}

TEST(CsvErrors, RaggedRow) {
  TempDir dir;
  const std::string path = dir.file("ragged.csv");
  testing::write_text(path, "a,b,c\n1,2,3\n4,5\n");
  EXPECT_EXADNN_ERROR(read_csv(path, CsvOptions().header()), path,
                      ":3: ragged row: 2 fields where the header has 3");
  testing::write_text(path, "1,2\n\n3,4,5\n");
  EXPECT_EXADNN_ERROR(read_csv(path), path, ":3: ragged row: 3 fields where the first row has 2");
}

TEST(CsvErrors, BadValuesAndLabels) {
  TempDir dir;
  const std::string path = dir.file("bad.csv");
  testing::write_text(path, "1,2\n3,abc\n");
  EXPECT_EXADNN_ERROR(read_csv(path), path, ":2: column 2: 'abc' is not a number");
  testing::write_text(path, "1,,2\n");
  EXPECT_EXADNN_ERROR(read_csv(path), path, ":1: column 2: '' is not a number");
  testing::write_text(path, "1,2.5\n");
  EXPECT_EXADNN_ERROR(read_csv(path, CsvOptions().label_column(1)), path,
                      ":1: column 2: label '2.5' is not an integer");
  EXPECT_EXADNN_ERROR(read_csv(path, CsvOptions().label_column(2)), path,
                      "label column 2 is out of range for 2 columns");
  EXPECT_EXADNN_ERROR(read_csv(path, CsvOptions().label_column("y")), path,
                      "chosen by name but the options declare no header");
  testing::write_text(path, "x,z\n1,2\n");
  EXPECT_EXADNN_ERROR(read_csv(path, CsvOptions().header().label_column("y")), path,
                      "no column named 'y'");
  EXPECT_EXADNN_ERROR(load_csv_dataset(path, CsvOptions().header()), path, "needs a label column");
  testing::write_text(path, "\n\n");
  EXPECT_EXADNN_ERROR(read_csv(path), path, "no data");
  EXPECT_EXADNN_ERROR(read_csv(dir.file("missing.csv")), "missing.csv: cannot open");
}

}  // namespace
}  // namespace exadnn::data
