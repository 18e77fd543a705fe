// CSV cells that are not finite numbers: "nan", "inf", "infinity" in any case and with either
// sign, and numbers beyond the column's dtype, are an Error naming file, line, row and column
// unless CsvOptions::allow_non_finite() reads them as data. A file without data rows is an Error.
#include <cmath>

#include "data_test_util.h"
#include "exadnn/data/csv.h"
#include "testing.h"

namespace exadnn::data {
namespace {

using exadnn::testing::TempDir;
using exadnn::testing::values;

// The defect: these were read as data.
TEST(CsvNonFinite, NanAndInfinityInAnyCaseAreRejected) {
  TempDir dir;
  const std::string path = dir.file("x.csv");
  for (const std::string cell :
       {"nan", "NaN", "-nan", "+NAN", "inf", "-Inf", "+INF", "Infinity", "-infinity"}) {
    testing::write_text(path, "a,b,y\n1,2,0\n\n3," + cell + ",1\n");
    EXPECT_EXADNN_ERROR(read_csv(path, CsvOptions().header().label_column("y")), path,
                        ":4: column 2 (data row 2): '" + cell + "' is not a finite f32 value",
                        "allow_non_finite");
  }
}

// The defect: 1e400 was "not a number"; a value beyond f32 (the features' dtype) became inf.
TEST(CsvNonFinite, NumbersBeyondTheDtypeAreNotFinite) {
  TempDir dir;
  const std::string path = dir.file("x.csv");
  testing::write_text(path, "1e400,0\n");
  EXPECT_EXADNN_ERROR(read_csv(path, CsvOptions().label_column(1)), path,
                      ":1: column 1 (data row 1): '1e400' is not a finite f32 value");
  testing::write_text(path, "1,0\n-1e39,1\n");
  EXPECT_EXADNN_ERROR(read_csv(path, CsvOptions().label_column(1)), path,
                      ":2: column 1 (data row 2): '-1e39' is not a finite f32 value");
  // Tiny numbers are zero (or subnormal), not errors.
  testing::write_text(path, "1e-400,0\n");
  EXPECT_EQ(values(read_csv(path, CsvOptions().label_column(1)).features),
            (std::vector<double>{0}));
}

TEST(CsvNonFinite, FloatLabelsAreCheckedInTheirDtype) {
  TempDir dir;
  const std::string path = dir.file("y.csv");
  testing::write_text(path, "1,0.5\n2,nan\n");
  EXPECT_EXADNN_ERROR(read_csv(path, CsvOptions().label_column(1).label_dtype(DType::f64)), path,
                      ":2: column 2 (data row 2): 'nan' is not a finite f64 value");
  testing::write_text(path, "1,1e300\n");
  EXPECT_EXADNN_ERROR(read_csv(path, CsvOptions().label_column(1).label_dtype(DType::f32)), path,
                      "'1e300' is not a finite f32 value");
  EXPECT_EQ(values(read_csv(path, CsvOptions().label_column(1).label_dtype(DType::f64)).labels),
            (std::vector<double>{1e300}));
  testing::write_text(path, "1,inf\n");
  EXPECT_EXADNN_ERROR(read_csv(path, CsvOptions().label_column(1).allow_non_finite()), path,
                      "label 'inf' is not an integer");
}

TEST(CsvNonFinite, AllowNonFiniteReadsThemAsData) {
  TempDir dir;
  const std::string path = dir.file("x.csv");
  testing::write_text(path, "NaN,-inf,1e400,-1e39,0\n");
  const CsvTable t =
      read_csv(path, CsvOptions().label_column(-1).allow_non_finite().label_dtype(DType::f32));
  const std::vector<double> v = values(t.features);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], -INFINITY);
  EXPECT_EQ(v[2], INFINITY);
  EXPECT_EQ(v[3], -INFINITY);
}

TEST(CsvNonFinite, SignsAreOneAtMost) {
  TempDir dir;
  const std::string path = dir.file("x.csv");
  testing::write_text(path, "+-1,0\n");
  EXPECT_EXADNN_ERROR(read_csv(path), path, ":1: column 1: '+-1' is not a number");
}

// The defect: a header without rows was a dataset of 0 examples.
TEST(CsvEmpty, AHeaderWithoutRowsIsAnError) {
  TempDir dir;
  const std::string path = dir.file("empty.csv");
  testing::write_text(path, "a,b,label\n\n");
  EXPECT_EXADNN_ERROR(load_csv_dataset(path, CsvOptions().header().label_column("label")), path,
                      "no data: the file holds a header but no rows");
}

}  // namespace
}  // namespace exadnn::data
